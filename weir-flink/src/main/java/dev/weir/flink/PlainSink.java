package dev.weir.flink;

import dev.weir.api.sink.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A plain Weir {@link Sink} (console, collect, callback: at-least-once) as a Flink Sink V2 sink:
 * {@code write} per record, the Weir writer's {@code finish} at the end of input, {@code close}
 * always. Replays after a restore write again, as on Weir's runtime.
 */
final class PlainSink implements org.apache.flink.api.connector.sink2.Sink<Object> {
    private static final long serialVersionUID = 1L;
    private final Shared<Sink<Object>> sink;
    private final String jobName;
    private final String sinkName;
    private final Shared<java.util.concurrent.atomic.AtomicInteger> attempts;

    PlainSink(
            Shared<Sink<Object>> sink,
            String jobName,
            String sinkName,
            Shared<java.util.concurrent.atomic.AtomicInteger> attempts) {
        this.sink = sink;
        this.jobName = jobName;
        this.sinkName = sinkName;
        this.attempts = attempts;
    }

    @Override
    public SinkWriter<Object> createWriter(WriterInitContext context) throws java.io.IOException {
        // Every task chain ends in a sink: each restart of a part of the job is counted here.
        FlinkProcessFunction.recordAttempt(attempts, context.getTaskInfo());
        dev.weir.api.sink.SinkWriter<Object> writer;
        try {
            writer =
                    sink.get()
                            .createWriter(
                                    new SinkSubtask(
                                            jobName,
                                            sinkName,
                                            context.getTaskInfo().getIndexOfThisSubtask(),
                                            context.getTaskInfo().getNumberOfParallelSubtasks(),
                                            context.getRestoredCheckpointId().orElse(-1)));
        } catch (java.io.IOException | RuntimeException e) {
            FlinkFailures.throwReplacement(e);
            throw e;
        } catch (Exception e) {
            FlinkFailures.throwReplacement(e);
            throw new java.io.IOException("cannot open sink '" + sinkName + "'", e);
        }
        return new SinkWriter<>() {
            @Override
            public void write(Object element, Context context) throws java.io.IOException {
                try {
                    writer.write(element);
                } catch (java.io.IOException | RuntimeException e) {
                    FlinkFailures.throwReplacement(e);
                    throw e;
                } catch (Exception e) {
                    FlinkFailures.throwReplacement(e);
                    throw new java.io.IOException("sink '" + sinkName + "' failed", e);
                }
            }

            @Override
            public void flush(boolean endOfInput) throws java.io.IOException {
                if (endOfInput) {
                    try {
                        writer.finish();
                    } catch (java.io.IOException | RuntimeException e) {
                        FlinkFailures.throwReplacement(e);
                        throw e;
                    } catch (Exception e) {
                        FlinkFailures.throwReplacement(e);
                        throw new java.io.IOException("sink '" + sinkName + "' failed", e);
                    }
                }
            }

            @Override
            public void close() throws Exception {
                writer.close();
            }
        };
    }
}
