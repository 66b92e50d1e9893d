package dev.weir.internal.operators;

import dev.weir.api.time.TimestampAssigner;
import dev.weir.api.time.WatermarkGenerator;
import dev.weir.api.time.WatermarkStrategy;

/**
 * Gives records event time: sets each record's timestamp with the strategy's assigner and emits the
 * watermarks its generator decides, on the generator's events and every auto-watermark interval of
 * processing time. It replaces watermarks from upstream (only the final one, at the end of input,
 * passes through), and never emits one lower than it emitted before.
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
        if (intervalMillis > 0) {
            timeService.schedule(timeService.now() + intervalMillis, this::periodic);
        }
    }

    private void periodic(long at) {
        try {
            generator.onPeriodicEmit(watermarks);
        } catch (RuntimeException e) {
            throw new UserCodeException("assignTimestampsAndWatermarks '" + name + "'", e);
        }
        timeService.schedule(Math.max(at, timeService.now()) + intervalMillis, this::periodic);
    }

    private void emit(long watermark) {
        if (watermark > emitted) {
            emitted = watermark;
            output.emitWatermark(watermark);
        }
    }

    @Override
    public void processElement(Object record) {
        long timestamp;
        try {
            timestamp =
                    assigner == null
                            ? time.timestamp
                            : assigner.extractTimestamp(record, time.timestamp);
            time.timestamp = timestamp;
            if (timestamp != RecordTime.NONE) {
                generator.onEvent(record, timestamp, watermarks);
            }
        } catch (RuntimeException e) {
            throw new UserCodeException("assignTimestampsAndWatermarks '" + name + "'", e);
        }
        output.collect(record);
    }

    @Override
    public boolean processWatermark(long watermark) {
        if (watermark == Long.MAX_VALUE) {
            emit(watermark); // the end of input passes through
        }
        return false;
    }
}
