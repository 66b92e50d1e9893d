package dev.weir.kafka;

import dev.weir.api.UnrecoverableException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What a Kafka sink's writer checks when it starts, so that a wrong configuration fails the job at
 * once with the fix instead of at the first commit or, worse, at the first recovery.
 */
final class SinkChecks {
    /** The broker setting that caps a producer's transaction timeout. */
    static final String BROKER_MAX_TIMEOUT = "transaction.max.timeout.ms";

    private SinkChecks() {}

    /** Fails unless {@code topic} exists: a producer would wait for it, then time out vaguely. */
    static void requireTopic(KafkaTransactions cluster, String topic, String sink) {
        try {
            cluster.admin()
                    .describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(KafkaTransactions.REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new UnrecoverableException(
                        "sink '"
                                + sink
                                + "': Kafka topic '"
                                + topic
                                + "' does not exist; create it (kafka-topics.sh --create --topic "
                                + topic
                                + ") or fix the name given to KafkaSink.to(...)");
            }
            throw new KafkaException(
                    "sink '" + sink + "' could not look up topic '" + topic + "': " + e.getCause(),
                    e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new KafkaException(
                    "sink '"
                            + sink
                            + "' could not reach Kafka to look up topic '"
                            + topic
                            + "' within "
                            + KafkaTransactions.REQUEST_TIMEOUT
                            + "; check the bootstrap servers and that the brokers run",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted", e);
        }
    }

    /**
     * Fails if the producer's {@code transaction.timeout.ms} is above any broker's {@code
     * transaction.max.timeout.ms}: the broker would refuse {@code initTransactions}. Skipped (the
     * same refusal then comes from {@link #timeoutRefused}) when the cluster does not let us read
     * broker configs.
     */
    static void requireTimeoutWithinBrokerMax(
            KafkaTransactions cluster, long timeoutMs, String sink) {
        try {
            Collection<Node> nodes =
                    cluster.admin()
                            .describeCluster()
                            .nodes()
                            .get(
                                    KafkaTransactions.REQUEST_TIMEOUT.toMillis(),
                                    TimeUnit.MILLISECONDS);
            for (Node node : nodes) {
                ConfigResource broker =
                        new ConfigResource(ConfigResource.Type.BROKER, node.idString());
                Map<ConfigResource, Config> configs =
                        cluster.admin()
                                .describeConfigs(List.of(broker))
                                .all()
                                .get(
                                        KafkaTransactions.REQUEST_TIMEOUT.toMillis(),
                                        TimeUnit.MILLISECONDS);
                ConfigEntry max = configs.get(broker).get(BROKER_MAX_TIMEOUT);
                if (max != null && max.value() != null && timeoutMs > Long.parseLong(max.value())) {
                    throw timeoutRefused(sink, timeoutMs, Long.parseLong(max.value()), null);
                }
            }
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof ClusterAuthorizationException)) {
                throw new KafkaException(
                        "sink '"
                                + sink
                                + "' could not read the brokers' configuration: "
                                + e.getCause(),
                        e.getCause());
            }
        } catch (java.util.concurrent.TimeoutException e) {
            throw new KafkaException(
                    "sink '" + sink + "' could not reach Kafka to read the brokers' configuration",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted", e);
        }
    }

    /** The refusal naming both settings; {@code brokerMaxMs} is -1 if unknown. */
    static UnrecoverableException timeoutRefused(
            String sink, long timeoutMs, long brokerMaxMs, Throwable cause) {
        return new UnrecoverableException(
                "sink '"
                        + sink
                        + "': the producer's transaction.timeout.ms ("
                        + timeoutMs
                        + " ms, KafkaSink.transactionTimeout) is above the broker's "
                        + BROKER_MAX_TIMEOUT
                        + (brokerMaxMs >= 0 ? " (" + brokerMaxMs + " ms)" : "")
                        + ", so the broker refuses its transactions; lower the sink's transaction"
                        + " timeout to at most "
                        + BROKER_MAX_TIMEOUT
                        + " (and keep it above checkpoint interval + checkpoint timeout + the"
                        + " longest restart delay), or raise "
                        + BROKER_MAX_TIMEOUT
                        + " in the brokers' server.properties",
                cause);
    }
}
