package dev.weir.testing;

import dev.weir.api.Guarantee;
import dev.weir.api.Pipeline;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.SinkWriter;
import dev.weir.api.source.Sources;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 12 item 11's probe, run in a child JVM with a small heap: 2 KB records from a fast source
 * through a keyBy into a slow sink at parallelism 2. Channels bounded only by batch count would
 * hold hundreds of megabytes; bounded by bytes the job finishes. Prints {@code DONE <records>}.
 * Argument: records.
 */
public final class BigRecordsChild {
    private BigRecordsChild() {}

    static final AtomicLong WRITTEN = new AtomicLong();

    public static void main(String[] args) throws Exception {
        long n = Long.parseLong(args[0]);
        String pad = "\\u00e9\\u4e00".repeat(500); // 1000 chars, UTF-16: 2 KB per record
        Pipeline pipeline = Pipeline.create("big-records").parallelism(2);
        pipeline.source("n", Sources.sequence(1, n))
                .map(i -> i + pad)
                .keyBy(s -> s.length() + s.charAt(0))
                .<Long, String>process(
                        "pass", Codecs.LONG, (key, value, state, out) -> out.collect(value))
                .sink(
                        "slow",
                        new Sink<String>() {
                            @Override
                            public String kind() {
                                return "slow";
                            }

                            @Override
                            public Guarantee guarantee() {
                                return Guarantee.AT_LEAST_ONCE;
                            }

                            @Override
                            public SinkWriter<String> createWriter(SinkContext context) {
                                return record -> {
                                    if (WRITTEN.incrementAndGet() % 200 == 0) {
                                        LockSupport.parkNanos(1_000_000);
                                    }
                                };
                            }
                        });
        pipeline.run();
        System.out.println("DONE " + WRITTEN.get());
    }
}
