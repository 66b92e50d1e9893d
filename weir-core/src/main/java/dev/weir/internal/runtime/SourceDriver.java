package dev.weir.internal.runtime;

import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.api.time.TimestampAssigner;
import dev.weir.api.time.WatermarkGenerator;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.internal.checkpoint.SplitState;
import dev.weir.internal.operators.Output;
import dev.weir.internal.operators.ProcessingTimeService;
import dev.weir.internal.operators.RecordTime;
import dev.weir.internal.operators.TimestampsOperator;
import dev.weir.internal.operators.UserCodeException;
import dev.weir.internal.testhooks.SeededBugs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the splits assigned to one source subtask, round-robin, into the task's output.
 *
 * <p>A split that ends keeps, in every later checkpoint, its final position and reader state and is
 * marked ended; a restore does not open it again, so a restore from any checkpoint after the split
 * ended (the final checkpoint of a finished job included) reads none of it twice.
 *
 * <p>With a {@link WatermarkStrategy} (the source assigns event time, as Flink's {@code fromSource}
 * does), every split has its own timestamp assigner call and watermark generator ({@link
 * SplitTime}), so splits read at different speeds do not make each other's records late; the
 * subtask's watermark is the minimum over its open, active splits (an ended split no longer counts,
 * an idle one is left out until it has records again, and when all are idle the largest is emitted
 * and the output goes idle). Each split's watermark is part of its checkpointed state, so a restore
 * neither regresses the watermark nor jumps it ahead.
 *
 * <p>Single-threaded: only the source task calls it.
 */
final class SourceDriver {
    private static final org.slf4j.Logger LOG =
            org.slf4j.LoggerFactory.getLogger(SourceDriver.class);

    private final Source<Object> source;
    private final List<String> splits;
    private final SourceContext context;
    private final List<SourceReader<Object>> readers = new ArrayList<>();
    private final List<String> openSplits = new ArrayList<>();

    /** The splits that ended, with their final position and reader state, in order of ending. */
    private final Map<String, SplitState> endedSplits = new LinkedHashMap<>();

    private int next;

    /** With event time: the task's source output (records and watermarks go here). */
    private final Output output;

    /** The watermark this subtask emitted last, or MIN_VALUE. */
    private long emitted = Long.MIN_VALUE;

    /** True while this subtask's output is marked idle (all open splits idle). */
    private boolean outputIdle;

    /** Event time per split, or null when the source assigns none. */
    private final SourceTime time;

    /**
     * With event time, the source's output when it is a writer that carries time: it stamps each
     * record it takes with the split being polled; null otherwise.
     */
    private final RecordWriter stampingWriter;

    /** Per open split (parallel to {@link #readers}), its event time; empty without a strategy. */
    private final List<SplitTime> splitTimes = new ArrayList<>();

    /**
     * Time between two refreshes of {@link #lag} (a reader's lag is for metrics only): checked once
     * per poll, so a source whose polls are slow (a slow function chained to it) still shows its
     * lag fall as it reads.
     */
    private static final long LAG_REFRESH_NANOS = 100_000_000;

    private long nextLagNanos = Long.MIN_VALUE;

    /** The readers' summed lag at the last refresh, -1 if none can tell (read racily). */
    private long lag = -1;

    SourceDriver(Source<Object> source, List<String> splits, SourceContext context) {
        this(source, splits, context, null);
    }

    SourceDriver(
            Source<Object> source, List<String> splits, SourceContext context, SourceTime time) {
        this.source = source;
        this.splits = List.copyOf(splits);
        this.context = context;
        this.time = time;
        this.output = time == null ? null : time.output();
        this.stampingWriter =
                time != null && time.output() instanceof RecordWriter writer && writer.carriesTime()
                        ? writer
                        : null;
    }

    /**
     * How a source assigns event time: the output records and watermarks go to (the head of the
     * task's chain), the strategy, the step's name for errors, the task's record time and
     * processing-time service, and the auto-watermark interval.
     */
    record SourceTime(
            Output output,
            String name,
            WatermarkStrategy<Object> strategy,
            RecordTime time,
            ProcessingTimeService timeService,
            long autoWatermarkMillis) {}

    /**
     * Opens a reader per split, moved to the {@code restored} position (and reader state) where
     * given; a split restored as ended stays ended and gets no reader. A source that cannot replay
     * is never asked to seek.
     */
    void open(Map<String, SplitState> restored) throws Exception {
        for (String split : splits) {
            SplitState state = restored.get(split);
            if (state != null && state.ended()) {
                if (!SeededBugs.REREAD_ENDED_SPLITS) {
                    endedSplits.put(split, state);
                    warnIfMoreInput(split, state);
                    continue;
                }
                state = null; // the seeded bug: read the ended split again from its start
            }
            SourceReader<Object> reader = source.openReader(split, context);
            readers.add(reader);
            openSplits.add(split);
            if (time != null) {
                splitTimes.add(new SplitTime(state == null ? Long.MIN_VALUE : state.watermark()));
            }
            if (state != null && source.isReplayable()) {
                moveTo(reader, state);
            }
        }
        if (time != null && !splitTimes.isEmpty()) {
            long period = period();
            if (period > 0) {
                time.timeService().schedule(time.timeService().now() + period, this::periodic);
            }
        }
    }

    /**
     * A restored ended split stays ended, so input that arrived in it since (records appended to a
     * log partition, a new file whose name falls in the split) is not read: says so, once, if its
     * reader can tell ({@link SourceReader#lag()}), instead of leaving it to a hash.
     */
    private void warnIfMoreInput(String split, SplitState state) {
        if (!source.isReplayable()) {
            return;
        }
        long more;
        try (SourceReader<Object> reader = source.openReader(split, context)) {
            moveTo(reader, state);
            more = reader.lag();
        } catch (Exception | LinkageError e) {
            return; // cannot tell: the split is not read either way
        }
        if (more > 0) {
            LOG.warn(
                    "{} source split '{}' had ended in the restored checkpoint, and more input is"
                            + " there now ({} bytes or records by its reader's count): a restored"
                            + " ended split stays ended, so this run does not read it (the same"
                            + " source's other splits read to the end they find). To read input"
                            + " that keeps arriving, use an unbounded source (Sources.filesWatching,"
                            + " Sources.logUnbounded); to read everything again, start with"
                            + " CheckpointConfig resume \"none\" into an empty output",
                    source.kind(),
                    split,
                    more);
        }
    }

    /** Puts a replayable source's {@code reader} where {@code state} says its split was. */
    private static void moveTo(SourceReader<Object> reader, SplitState state) throws Exception {
        if (state.readerState() != null) {
            reader.restoreState(state.readerState());
        }
        reader.seek(state.position());
    }

    /**
     * The task skipped a read to wait for a slower sibling (watermark alignment): the splits are
     * held back, not idle, so their idleness clocks start again at the next check. A split idle
     * already stays idle until it has a record.
     */
    void paused() {
        for (SplitTime split : splitTimes) {
            split.paused = true;
        }
    }

    /** The periodic step of event time: generators' periodic watermarks and idleness. */
    private void periodic(long at) {
        long now = time.timeService().now();
        for (SplitTime split : splitTimes) {
            if (time.autoWatermarkMillis() > 0) {
                try {
                    split.generator.onPeriodicEmit(split);
                } catch (RuntimeException e) {
                    throw new UserCodeException(
                            "the watermark strategy of source '" + time.name() + "'", e);
                }
            }
            split.checkIdle(now, time.strategy().idleTimeoutMillis());
        }
        advance();
        if (!splitTimes.isEmpty() && period() > 0) {
            time.timeService().schedule(Math.max(at, now) + period(), this::periodic);
        }
    }

    /** Periodic watermarks every auto-watermark interval; without them, idleness checks. */
    private long period() {
        return TimestampsOperator.periodMillis(
                time.autoWatermarkMillis(), time.strategy().idleTimeoutMillis());
    }

    /**
     * Emits the subtask's watermark if it rose: the minimum over the open splits that are active;
     * when every open split is idle, the largest of theirs, then the output is marked idle.
     */
    private void advance() {
        if (splitTimes.isEmpty()) {
            return; // all ended: the task's end of input emits the final watermark
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        boolean anyActive = false;
        for (SplitTime split : splitTimes) {
            max = Math.max(max, split.watermark);
            if (!split.idle) {
                anyActive = true;
                min = Math.min(min, split.watermark);
            }
        }
        long next = anyActive ? min : max;
        if (next > emitted) {
            emitted = next;
            outputIdle = false;
            output.emitWatermark(next);
        } else if (anyActive && outputIdle) {
            outputIdle = false; // active again: rejoin the consumers' minimum
            if (emitted != Long.MIN_VALUE) {
                output.emitWatermark(emitted);
            }
        }
        if (!anyActive && !outputIdle) {
            outputIdle = true;
            output.emitWatermark(Output.IDLE);
        }
    }

    /** The state of every assigned split, for a checkpoint: ended ones as they ended. */
    Map<String, SplitState> snapshot() throws Exception {
        Map<String, SplitState> states = new LinkedHashMap<>(endedSplits);
        for (int i = 0; i < readers.size(); i++) {
            SourceReader<Object> reader = readers.get(i);
            states.put(
                    openSplits.get(i),
                    new SplitState(
                            reader.position(),
                            reader.snapshotState(),
                            false,
                            time == null ? Long.MIN_VALUE : splitTimes.get(i).watermark));
        }
        return states;
    }

    /**
     * Polls up to {@code maxRecords} from the next open split; returns true if any split made
     * progress or ended.
     */
    boolean poll(Output output, int maxRecords) throws Exception {
        if (readers.isEmpty()) {
            return false;
        }
        boolean progress = pollOnce(output, maxRecords);
        // After the read, so the figure counts what this poll read.
        long now = context.nanoTime();
        if (nextLagNanos == Long.MIN_VALUE || now - nextLagNanos >= 0) {
            nextLagNanos = now + LAG_REFRESH_NANOS;
            if (!readers.isEmpty()) {
                refreshLag();
            }
        }
        return progress;
    }

    private boolean pollOnce(Output output, int maxRecords) throws Exception {
        int tries = readers.size();
        for (int i = 0; i < tries; i++) {
            if (next >= readers.size()) {
                next = 0;
            }
            SourceReader<Object> reader = readers.get(next);
            ReadStatus status;
            if (time == null) {
                status = reader.poll(output, maxRecords);
            } else {
                SplitTime split = splitTimes.get(next);
                split.polling = true;
                try {
                    if (stampingWriter != null) {
                        stampingWriter.stampWith(split);
                        status = reader.poll(output, maxRecords);
                    } else {
                        status = reader.poll(split, maxRecords);
                    }
                } finally {
                    split.polling = false;
                    split.raised = false; // a failure: the task fails with it
                    if (stampingWriter != null) {
                        stampingWriter.stampWith(null);
                    }
                }
            }
            if (status == ReadStatus.END_OF_INPUT) {
                endedSplits.put(
                        openSplits.get(next),
                        new SplitState(
                                reader.position(),
                                reader.snapshotState(),
                                true,
                                time == null ? Long.MIN_VALUE : splitTimes.get(next).watermark));
                reader.close();
                readers.remove(next);
                openSplits.remove(next);
                if (time != null) {
                    splitTimes.remove(next);
                    advance(); // an ended split no longer holds the watermark back
                }
                if (readers.isEmpty()) {
                    lag = 0; // all read
                }
                return true;
            }
            next++;
            if (status == ReadStatus.MORE_AVAILABLE) {
                return true;
            }
        }
        return false;
    }

    private void refreshLag() {
        long sum = -1;
        for (int i = 0; i < readers.size(); i++) {
            long readerLag = readers.get(i).lag();
            if (readerLag >= 0) {
                sum = Math.max(sum, 0) + readerLag;
            }
        }
        lag = sum;
    }

    /**
     * The open readers' summed lag ({@link SourceReader#lag}) as last refreshed, 0 once every split
     * ended, -1 if no reader can tell. Any thread (a racy read).
     */
    long lag() {
        return lag;
    }

    boolean ended() {
        return readers.isEmpty();
    }

    void close() throws Exception {
        Exception first = null;
        for (SourceReader<Object> reader : readers) {
            try {
                reader.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        readers.clear();
        openSplits.clear();
        if (first != null) {
            throw first;
        }
    }

    /**
     * One split's event time: the split's timestamp assigner and watermark generator, applied to
     * each record as it is handed on. When the source's only output is a {@link RecordWriter}, the
     * writer calls {@link #stamp} itself for each record it takes ({@link RecordWriter#stampWith}),
     * so the reader's records take the same path with event time as without: no buffer, no second
     * loop over them (design 009, rule 5). Otherwise the reader emits into this split, which stamps
     * each record and hands it on. A watermark the generator emits on a record goes out after that
     * record and before the next; the generator's watermarks raise the split's watermark (never
     * lower it).
     */
    private final class SplitTime extends RecordStamper
            implements Output, WatermarkGenerator.WatermarkOutput {
        final TimestampAssigner<Object> assigner = time.strategy().timestampAssigner();
        final WatermarkGenerator<Object> generator = time.strategy().createGenerator();
        final RecordTime recordTime = time.time();
        long watermark;
        boolean idle;
        boolean sawRecord;

        /** True if the subtask skipped a read for alignment since the last idleness check. */
        boolean paused;

        long activeAt = time.timeService().now();

        /** True while a poll of this split runs: a watermark then waits for its record. */
        boolean polling;

        SplitTime(long restoredWatermark) {
            this.watermark = restoredWatermark;
        }

        @Override
        long stamp(Object record) {
            if (!sawRecord) {
                sawRecord = true;
                if (idle) {
                    idle = false;
                    advance(); // active again, before its first record
                }
            }
            long timestamp;
            try {
                timestamp = assigner.extractTimestamp(record, RecordTime.NONE);
            } catch (RuntimeException e) {
                throw new UserCodeException(
                        "the timestamp assigner of source '" + time.name() + "'", e);
            }
            if (timestamp != RecordTime.NONE) {
                try {
                    generator.onEvent(record, timestamp, this);
                } catch (RuntimeException e) {
                    throw new UserCodeException(
                            "the watermark strategy of source '" + time.name() + "'", e);
                }
            }
            return timestamp;
        }

        @Override
        void emitRaised() {
            raised = false;
            advance();
        }

        /** A record from the reader, when the output is not a writer that stamps it itself. */
        @Override
        public void collect(Object record) {
            if (record == null) {
                throw dev.weir.internal.operators.NullCheckingOutput.nullRecord(
                        "source '" + time.name() + "'", "emitted null");
            }
            recordTime.timestamp = stamp(record);
            output.collect(record);
            if (raised) {
                emitRaised();
            }
        }

        /** Not called: a reader emits through the {@code Collector} side only. */
        @Override
        public void emitWatermark(long newWatermark) {
            emit(newWatermark);
        }

        /** A watermark from this split's generator. */
        @Override
        public void emit(long newWatermark) {
            if (newWatermark > watermark) {
                watermark = newWatermark;
                if (polling) {
                    raised = true; // emitted once the record it was raised on is out
                } else {
                    advance();
                }
            }
        }

        /** Marks the split idle once it had no record for {@code timeoutMillis} (0 = never). */
        void checkIdle(long now, long timeoutMillis) {
            if (timeoutMillis <= 0) {
                return;
            }
            if (sawRecord || paused) {
                sawRecord = false;
                paused = false;
                activeAt = now;
            } else if (!idle && now - activeAt >= timeoutMillis) {
                idle = true;
            }
        }
    }
}
