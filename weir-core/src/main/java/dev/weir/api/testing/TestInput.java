package dev.weir.api.testing;

import dev.weir.api.DataStream;
import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.api.time.WatermarkGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A named test source of a {@link PipelineTestDriver}: the records a test feeds, in the order fed,
 * as the stream {@link #stream()} of the pipeline under test.
 *
 * <p>Behind it is a replayable source with one split that reads what was fed so far and then waits
 * for more (it never ends): a restart after a failure seeks back to the position its last
 * checkpoint holds and reads the same records again, as a durable log or a Kafka partition would.
 * Event time comes from the timestamps fed with {@link #feedAt(long, Object)}: after each such
 * record the watermark is the largest timestamp fed so far, minus the input's out-of-orderness
 * bound, minus one; {@link #advanceWatermark} raises it explicitly. Records fed without a timestamp
 * have none.
 *
 * <h2>How the methods are called</h2>
 *
 * {@link #stream()} while the test builds the pipeline; {@code feed} and {@link #advanceWatermark}
 * by the test's thread, before or after {@link PipelineTestDriver#start()}. A fed record is read by
 * the source task on one of the job's worker threads some time later; {@link
 * PipelineTestDriver#checkpoint()} is what waits until it has been. Thread-safe.
 *
 * @param <T> record type
 */
public final class TestInput<T> {
    private final String name;
    private final Feed<T> feed;
    private final DataStream<T> stream;

    TestInput(String name, Feed<T> feed, DataStream<T> stream) {
        this.name = name;
        this.feed = feed;
        this.stream = stream;
    }

    /**
     * The name the source has in the pipeline. Any thread.
     *
     * @return the source's name, as given to {@link PipelineTestDriver#input}
     */
    public String name() {
        return name;
    }

    /**
     * The records fed to this input, as a stream to build the pipeline on; called by the test's
     * thread while it builds the pipeline.
     *
     * @return the stream of the fed records, in the order fed
     */
    public DataStream<T> stream() {
        return stream;
    }

    /**
     * Feeds {@code values} without event timestamps, in order. Called by the test's thread.
     *
     * @param values the records; none may be null
     * @return this input
     * @throws NullPointerException if a value is null
     */
    @SafeVarargs
    public final TestInput<T> feed(T... values) {
        List<T> list = new ArrayList<>(values.length);
        for (T value : values) {
            list.add(value);
        }
        return feed(list);
    }

    /**
     * Feeds {@code values} without event timestamps, in order. Called by the test's thread.
     *
     * @param values the records; none may be null
     * @return this input
     * @throws NullPointerException if a value is null
     */
    public TestInput<T> feed(List<? extends T> values) {
        List<Entry<T>> entries = new ArrayList<>(values.size());
        for (T value : values) {
            entries.add(new Entry<>(Objects.requireNonNull(value, "value"), NO_TIMESTAMP, false));
        }
        feed.append(entries);
        return this;
    }

    /**
     * Feeds {@code value} with the event time {@code timestampMillis}, which may raise the
     * watermark (see the class comment). Called by the test's thread. (Named apart from {@link
     * #feed(Object[])} so that {@code feed(1L, 2L)} on a {@code TestInput<Long>} feeds two records,
     * not one at time 1.)
     *
     * @param timestampMillis the record's event time in milliseconds since the epoch; not {@link
     *     Long#MIN_VALUE}
     * @param value the record; not null
     * @return this input
     * @throws IllegalArgumentException if {@code timestampMillis} is {@link Long#MIN_VALUE}
     */
    public TestInput<T> feedAt(long timestampMillis, T value) {
        if (timestampMillis == NO_TIMESTAMP) {
            throw new IllegalArgumentException(
                    "timestamp Long.MIN_VALUE means 'no timestamp'; feed(value) says that");
        }
        feed.append(
                List.of(
                        new Entry<>(
                                Objects.requireNonNull(value, "value"), timestampMillis, false)));
        return this;
    }

    /**
     * Raises this input's watermark to {@code watermarkMillis} after the records fed so far: the
     * input promises no record at or below it, so event-time windows and timers up to it fire once
     * the watermark has passed every step (after the next {@link PipelineTestDriver#checkpoint()}
     * their output is committed). A watermark not above the current one changes nothing. Called by
     * the test's thread.
     *
     * @param watermarkMillis the new watermark in milliseconds since the epoch
     * @return this input
     */
    public TestInput<T> advanceWatermark(long watermarkMillis) {
        feed.append(List.of(new Entry<T>(null, watermarkMillis, true)));
        return this;
    }

    /**
     * How many records and watermarks were fed so far. Any thread.
     *
     * @return the number of {@code feed} records and {@link #advanceWatermark} calls so far
     */
    public long fed() {
        return feed.size();
    }

    Feed<T> feed() {
        return feed;
    }

    /** What a record fed without a timestamp carries (the runtime's "none"). */
    static final long NO_TIMESTAMP = Long.MIN_VALUE;

    /**
     * One fed element: a record with its timestamp, or a watermark (then {@code timestamp} is the
     * watermark and {@code value} null). Watermarks travel as elements so they stay in order with
     * the records; the step right after the source drops them.
     */
    record Entry<T>(T value, long timestamp, boolean watermark) {}

    /**
     * Makes watermarks from fed timestamps and fed watermarks as each arrives (never periodically,
     * so a manual processing-time clock cannot hold them back).
     */
    static final class FeedWatermarks<T> implements WatermarkGenerator<Entry<T>> {
        private final long boundMillis;
        private long maxTimestamp = Long.MIN_VALUE;

        FeedWatermarks(long boundMillis) {
            this.boundMillis = boundMillis;
        }

        @Override
        public void onEvent(Entry<T> entry, long timestamp, WatermarkOutput output) {
            if (entry.watermark()) {
                output.emit(timestamp);
            } else if (timestamp > maxTimestamp) {
                maxTimestamp = timestamp;
                output.emit(maxTimestamp - boundMillis - 1);
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /**
     * What was fed, shared by the test's thread (appends) and the source task (reads), with the
     * reader's progress; guarded by the driver's lock.
     */
    /** The failure {@link PipelineTestDriver#injectFailure} causes: the driver expects it. */
    static final class InjectedFailure extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        InjectedFailure() {
            super("failure injected by PipelineTestDriver.injectFailure()");
        }
    }

    static final class Feed<T> {
        private final Object lock;

        /** True once the driver closed: feeding more is a mistake in the test. */
        private boolean closed;

        /** A step's failure the test did not inject: feeding throws it. Under the lock. */
        private final JobFailure jobFailure;

        private final List<Entry<T>> entries = new ArrayList<>();

        /** The open reader, or null between runs of the job. */
        private FeedReader<T> reader;

        /** Readers opened so far: a new one means the job restarted. */
        private long readersOpened;

        /**
         * True when the next poll must fail its task ({@link PipelineTestDriver#injectFailure}).
         */
        private boolean failNextPoll;

        Feed(Object lock, JobFailure jobFailure) {
            this.lock = lock;
            this.jobFailure = jobFailure;
        }

        void append(List<Entry<T>> more) {
            synchronized (lock) {
                if (closed) {
                    throw new IllegalStateException("the driver of this input is closed");
                }
                jobFailure.throwIfAny("feeding");
                entries.addAll(more);
                lock.notifyAll();
            }
        }

        long size() {
            synchronized (lock) {
                return entries.size();
            }
        }

        /** True if a reader is open and has emitted everything fed so far; under the lock. */
        boolean caughtUp() {
            return reader != null && reader.position == entries.size();
        }

        /** True if a reader is open; under the lock. */
        boolean open() {
            return reader != null;
        }

        /** Under the lock. */
        long readersOpened() {
            return readersOpened;
        }

        /** Under the lock. */
        void armFailure() {
            failNextPoll = true;
        }

        /** Refuses further records (the driver closed). */
        void close() {
            synchronized (lock) {
                closed = true;
            }
        }
    }

    /** The replayable source over a {@link Feed}: one split, never ending. */
    static final class FeedSource<T> implements Source<Entry<T>> {
        private static final long serialVersionUID = 1L;
        private final transient Feed<T> feed;

        FeedSource(Feed<T> feed) {
            this.feed = feed;
        }

        @Override
        public String kind() {
            return "test input";
        }

        @Override
        public boolean isReplayable() {
            return true;
        }

        @Override
        public List<String> splits(int parallelism) {
            return List.of("fed");
        }

        @Override
        public SourceReader<Entry<T>> openReader(String split, SourceContext context) {
            FeedReader<T> reader = new FeedReader<>(feed);
            synchronized (feed.lock) {
                feed.reader = reader;
                feed.readersOpened++;
                feed.lock.notifyAll();
            }
            return reader;
        }
    }

    /** Reads a {@link Feed} on the source task's thread. */
    static final class FeedReader<T> implements SourceReader<Entry<T>> {
        private final Feed<T> feed;

        /** Entries emitted; written by the source task under the lock, read by the test. */
        private long position;

        FeedReader(Feed<T> feed) {
            this.feed = feed;
        }

        @Override
        public ReadStatus poll(Collector<Entry<T>> out, int maxRecords) {
            List<Entry<T>> batch;
            synchronized (feed.lock) {
                if (feed.failNextPoll) {
                    feed.failNextPoll = false;
                    throw new InjectedFailure();
                }
                int from = (int) position;
                int to = Math.min(feed.entries.size(), from + maxRecords);
                batch = new ArrayList<>(feed.entries.subList(from, to));
            }
            for (Entry<T> entry : batch) {
                out.collect(entry);
            }
            synchronized (feed.lock) {
                position += batch.size();
                feed.lock.notifyAll();
            }
            return batch.isEmpty() ? ReadStatus.NOTHING_AVAILABLE : ReadStatus.MORE_AVAILABLE;
        }

        @Override
        public long position() {
            synchronized (feed.lock) {
                return position;
            }
        }

        @Override
        public void seek(long newPosition) {
            synchronized (feed.lock) {
                if (newPosition > feed.entries.size()) {
                    throw new IllegalStateException(
                            "restored position "
                                    + newPosition
                                    + " is beyond the "
                                    + feed.entries.size()
                                    + " elements fed");
                }
                position = newPosition;
                feed.lock.notifyAll();
            }
        }

        @Override
        public long lag() {
            synchronized (feed.lock) {
                return feed.entries.size() - position;
            }
        }

        @Override
        public void close() {
            synchronized (feed.lock) {
                if (feed.reader == this) {
                    feed.reader = null;
                }
                feed.lock.notifyAll();
            }
        }
    }
}
