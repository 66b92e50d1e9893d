package dev.weir.kafka;

import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The job of the Kafka crash tests, run in a child JVM: a bounded Kafka source (the input topic,
 * four splits) through a throttled map into an exactly-once Kafka sink (the output topic, two
 * subtasks), checkpoints every 50 ms, resuming from the latest checkpoint. A fault point armed with
 * {@code -Dweir.fault} kills the JVM with SIGKILL.
 *
 * <p>Arguments: bootstrap servers, input topic, output topic, checkpoint directory, and optionally
 * producer/consumer {@code request.timeout.ms}.
 */
public final class KafkaCrashChild {
    private KafkaCrashChild() {}

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String requestTimeout = args.length > 4 ? args[4] : "30000";
        Pipeline pipeline =
                Pipeline.create("kafka-crash")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(50), Path.of(args[3])))
                        .restartStrategy(RestartStrategy.fixedDelay(20, Duration.ofMillis(500)));
        pipeline.source(
                        "in",
                        KafkaSource.topics(bootstrap, KafkaDeserializer.strings(), args[1])
                                .splitCount(4)
                                .bounded()
                                .property("request.timeout.ms", requestTimeout))
                .map(KafkaCrashChild::throttle)
                .sink(
                        "out",
                        KafkaSink.to(bootstrap, args[2], KafkaSerializer.strings())
                                .transactionalIdPrefix(args[2])
                                .property("request.timeout.ms", requestTimeout)
                                .property(
                                        "delivery.timeout.ms",
                                        Integer.toString(
                                                Integer.parseInt(requestTimeout) * 2 + 1000)));
        pipeline.run();
        System.out.println("DONE");
    }

    /** About 10,000 records a second, so checkpoints and faults land mid-run. */
    static String throttle(String value) {
        if (value.hashCode() % 10 == 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        return value;
    }
}
