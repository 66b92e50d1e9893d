package dev.weir.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every replayable source passes: positions start at 0, reading yields every record
 * once in order per split, seeking to a reported position resumes exactly there, input ends, and a
 * job restarted from a checkpoint neither loses nor repeats a record in its state.
 */
public abstract class ReplayableSourceConformance {
    @TempDir protected Path temp;

    /** A source whose splits together hold exactly {@code records}, in order within a split. */
    protected abstract Source<String> createSource(List<String> records, int splits)
            throws Exception;

    static List<String> records(int n) {
        List<String> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add("record-" + i);
        }
        return records;
    }

    static final SourceContext CONTEXT =
            new SourceContext() {
                @Override
                public int subtaskIndex() {
                    return 0;
                }

                @Override
                public int parallelism() {
                    return 1;
                }

                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }
            };

    static List<String> readAll(SourceReader<String> reader, int batch) throws Exception {
        List<String> out = new ArrayList<>();
        Collector<String> collector = out::add;
        for (int spins = 0; spins < 1_000_000; spins++) {
            if (reader.poll(collector, batch) == ReadStatus.END_OF_INPUT) {
                return out;
            }
        }
        throw new AssertionError("no end of input");
    }

    List<String> readSplits(Source<String> source, int splits) throws Exception {
        List<String> all = new ArrayList<>();
        for (String split : source.splits(splits)) {
            try (SourceReader<String> reader = source.openReader(split, CONTEXT)) {
                assertThat(reader.position()).isZero();
                all.addAll(readAll(reader, 7));
            }
        }
        return all;
    }

    @Test
    void declaresItselfReplayable() throws Exception {
        assertThat(createSource(records(3), 1).isReplayable()).isTrue();
    }

    @Test
    void readsEveryRecordOnceAndThenEnds() throws Exception {
        List<String> expected = records(1000);
        List<String> read = readSplits(createSource(expected, 2), 2);
        assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void seekingToAReportedPositionResumesExactlyThere() throws Exception {
        Source<String> source = createSource(records(500), 1);
        String split = source.splits(1).get(0);
        List<String> head = new ArrayList<>();
        long position;
        byte[] state;
        try (SourceReader<String> reader = source.openReader(split, CONTEXT)) {
            while (head.size() < 123) {
                reader.poll(head::add, 123 - head.size());
            }
            position = reader.position();
            state = reader.snapshotState();
        }
        try (SourceReader<String> reader = source.openReader(split, CONTEXT)) {
            if (state != null) {
                reader.restoreState(state);
            }
            reader.seek(position);
            List<String> tail = readAll(reader, 50);
            List<String> both = new ArrayList<>(head);
            both.addAll(tail);
            try (SourceReader<String> uninterrupted = source.openReader(split, CONTEXT)) {
                assertThat(both).containsExactlyElementsOf(readAll(uninterrupted, 1000));
            }
            assertThat(both).containsExactlyInAnyOrderElementsOf(records(500));
        }
    }

    @Test
    void aJobRestartedFromACheckpointCountsEveryRecordOnce() throws Exception {
        int n = 20_000;
        AtomicBoolean checkpointed = new AtomicBoolean();
        AtomicBoolean failed = new AtomicBoolean();
        record Count(String key, long count) {}
        Pipeline pipeline =
                Pipeline.create("conformance")
                        .parallelism(2)
                        .batchSize(64)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(5), temp.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        checkpointed.set(true);
                                    }
                                });
        CollectSink<Count> sink = Sinks.collect();
        pipeline.source("input", createSource(records(n), 3))
                .keyBy(line -> "k" + (line.hashCode() & 3))
                .<Long, Count>process(
                        "count",
                        Codecs.LONG,
                        (key, line, state, out) -> {
                            if (checkpointed.get() && failed.compareAndSet(false, true)) {
                                throw new IllegalStateException("injected");
                            }
                            long next = (state.value() == null ? 0 : state.value()) + 1;
                            state.update(next);
                            out.collect(new Count(key, next));
                        })
                .sink("out", sink);

        pipeline.run();

        Map<String, Long> finalCounts = new HashMap<>();
        for (Count count : sink.results()) {
            finalCounts.merge(count.key(), count.count(), Math::max);
        }
        assertThat(finalCounts.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(n);
    }
}
