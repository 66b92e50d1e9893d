package dev.weir.internal.operators;

import dev.weir.api.time.TimestampAssigner;
import dev.weir.api.time.WatermarkGenerator;
import dev.weir.api.time.WatermarkStrategy;

/**
 * Gives records event time: sets each record's timestamp with the strategy's assigner and emits the
 * watermarks its generator decides, on the generator's events and every auto-watermark interval of
 * processing time. It replaces watermarks from upstream (only the final one, at the end of input,
 * passes through), and never emits one lower than it emitted before. With an idleness timeout it
 * marks its output idle ({@link Output#IDLE}) when no record came for that long, and active again
 * (its last watermark) before the next record.
 */
public final class TimestampsOperator implements StreamOperator {
    private final WatermarkStrategy<Object> strategy;
    private TimestampAssigner<Object> assigner;
    private WatermarkGenerator<Object> generator;
    private String name;
    private Output output;
    private RecordTime time;
    private ProcessingTimeService timeService;
    private long intervalMillis;
    private long emitted = Long.MIN_VALUE;

    /** The idleness timeout in ms, 0 for none. */
    private long idleTimeoutMillis;

    /** True once a record came since the last idleness check. */
    private boolean sawRecord;

    /** When a record was last seen (by idleness checks), in processing time. */
    private long activeAt;

    /** True while this subtask's output is marked idle. */
    private boolean idle;

    private final WatermarkGenerator.WatermarkOutput watermarks = this::emit;

    public TimestampsOperator(WatermarkStrategy<Object> strategy) {
        this.strategy = strategy;
    }

    @Override
    public void open(OperatorContext context) {
        this.name = context.operatorName();
        this.output = context.output();
        this.time = context.time();
        this.timeService = context.timeService();
        this.intervalMillis = context.autoWatermarkMillis();
        this.assigner = strategy.timestampAssigner();
        this.generator = strategy.createGenerator();
        this.idleTimeoutMillis = strategy.idleTimeoutMillis();
        this.activeAt = timeService.now();
        long period = period();
        if (period > 0) {
            timeService.schedule(timeService.now() + period, this::periodic);
        }
    }

    /** Periodic watermarks every auto-watermark interval; without them, idleness checks. */
    private long period() {
        return periodMillis(intervalMillis, idleTimeoutMillis);
    }

    /**
     * How often watermark generation runs: every auto-watermark interval; without one, twice per
     * idleness timeout (to check for idleness); 0 for never. Shared with sources that assign time.
     */
    public static long periodMillis(long intervalMillis, long idleTimeoutMillis) {
        if (intervalMillis > 0) {
            return intervalMillis;
        }
        return idleTimeoutMillis > 0 ? Math.max(1, idleTimeoutMillis / 2) : 0;
    }

    private void periodic(long at) {
        if (intervalMillis > 0) {
            try {
                generator.onPeriodicEmit(watermarks);
            } catch (RuntimeException e) {
                throw new UserCodeException("assignTimestampsAndWatermarks '" + name + "'", e);
            }
        }
        long now = timeService.now();
        if (idleTimeoutMillis > 0) {
            checkIdle(now);
        }
        timeService.schedule(Math.max(at, now) + period(), this::periodic);
    }

    /** Marks the output idle once no record came for the idleness timeout. */
    private void checkIdle(long now) {
        if (sawRecord) {
            sawRecord = false;
            activeAt = now;
        } else if (!idle && now - activeAt >= idleTimeoutMillis) {
            idle = true;
            output.emitWatermark(Output.IDLE);
        }
    }

    private void emit(long watermark) {
        if (watermark > emitted) {
            emitted = watermark;
            idle = false; // a real watermark makes the channel active again downstream
            sawRecord = true;
            output.emitWatermark(watermark);
        }
    }

    /** Held back by alignment is not idle: counts as a record seen for the idleness check. */
    @Override
    public void sourcePaused() {
        sawRecord = true;
    }

    @Override
    public void processElement(Object record) {
        sawRecord = true;
        if (idle) {
            // Active again: the channel rejoins its consumers' minimum with the last watermark.
            idle = false;
            if (emitted != Long.MIN_VALUE) {
                output.emitWatermark(emitted);
            }
        }
        long timestamp;
        try {
            timestamp =
                    assigner == null
                            ? time.timestamp
                            : assigner.extractTimestamp(record, time.timestamp);
            time.timestamp = timestamp;
        } catch (RuntimeException e) {
            throw new UserCodeException("assignTimestampsAndWatermarks '" + name + "'", e);
        }
        // The record first: a watermark its generator emits on it must not overtake it (the
        // record would arrive late behind its own watermark).
        output.collect(record);
        if (timestamp != RecordTime.NONE) {
            try {
                generator.onEvent(record, timestamp, watermarks);
            } catch (RuntimeException e) {
                throw new UserCodeException("assignTimestampsAndWatermarks '" + name + "'", e);
            }
        }
    }

    @Override
    public boolean processWatermark(long watermark) {
        if (watermark == Long.MAX_VALUE) {
            emit(watermark); // the end of input passes through
        }
        return false;
    }
}
