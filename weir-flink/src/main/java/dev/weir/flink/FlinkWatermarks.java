package dev.weir.flink;

import dev.weir.api.time.TimestampAssigner;
import dev.weir.api.time.WatermarkStrategy;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/**
 * A Weir {@link WatermarkStrategy} as Flink's: one Weir generator per subtask, fed every event and
 * asked for a watermark every auto-watermark interval; the Weir timestamp assigner, or the record's
 * own timestamp if it has none. As on Weir's runtime, the step replaces upstream watermarks, and
 * the end of a bounded input raises the watermark to the maximum, firing every event-time timer.
 */
final class FlinkWatermarks
        implements org.apache.flink.api.common.eventtime.WatermarkStrategy<Object> {
    private static final long serialVersionUID = 1L;
    private final Shared<WatermarkStrategy<Object>> strategy;

    FlinkWatermarks(Shared<WatermarkStrategy<Object>> strategy) {
        this.strategy = strategy;
    }

    @Override
    public WatermarkGenerator<Object> createWatermarkGenerator(
            WatermarkGeneratorSupplier.Context context) {
        dev.weir.api.time.WatermarkGenerator<Object> generator = strategy.get().createGenerator();
        return new WatermarkGenerator<>() {
            @Override
            public void onEvent(Object event, long timestamp, WatermarkOutput output) {
                generator.onEvent(
                        event, timestamp, time -> output.emitWatermark(new Watermark(time)));
            }

            @Override
            public void onPeriodicEmit(WatermarkOutput output) {
                generator.onPeriodicEmit(time -> output.emitWatermark(new Watermark(time)));
            }
        };
    }

    @Override
    public org.apache.flink.api.common.eventtime.TimestampAssigner<Object> createTimestampAssigner(
            TimestampAssignerSupplier.Context context) {
        TimestampAssigner<Object> assigner = strategy.get().timestampAssigner();
        if (assigner == null) {
            return (record, previous) -> previous;
        }
        return assigner::extractTimestamp;
    }
}
