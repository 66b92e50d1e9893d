package dev.weir.kafka;

import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.TransactionalWriter;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The writer of a {@link KafkaSink} in {@link KafkaSink.Mode#AT_LEAST_ONCE} (an idempotent
 * producer, flushed at every barrier so that a checkpoint never covers an unacknowledged record) or
 * {@link KafkaSink.Mode#NONE} (sent and forgotten; close waits for what is buffered).
 *
 * <p>On the sink task's thread only. A failed send fails the next call: the restart replays from
 * the last checkpoint.
 */
final class PlainWriter<T> implements TransactionalWriter<T, KafkaCommittable> {
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaSink.Settings<T> settings;
    private final KafkaProducer<byte[], byte[]> producer;
    private final AtomicReference<Exception> sendError = new AtomicReference<>();

    PlainWriter(KafkaSink.Settings<T> settings, SinkContext context) {
        this.settings = settings;
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(settings.bootstrapServers(), settings.properties())) {
            SinkChecks.requireTopic(cluster, settings.topic(), context.sinkName());
        }
        Properties props = new Properties();
        props.putAll(settings.properties());
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        props.put(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                Boolean.toString(settings.mode() == KafkaSink.Mode.AT_LEAST_ONCE));
        if (settings.mode() == KafkaSink.Mode.AT_LEAST_ONCE) {
            props.put(ProducerConfig.ACKS_CONFIG, "all");
        }
        props.putIfAbsent(
                ProducerConfig.CLIENT_ID_CONFIG,
                "weir-" + context.sinkName() + "-" + context.subtaskIndex());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        this.producer = new KafkaProducer<>(props);
    }

    @Override
    public void write(T record) throws Exception {
        failIfSendFailed();
        producer.send(
                settings.serializer().serialize(record, settings.topic()),
                (metadata, error) -> {
                    if (error != null) {
                        sendError.compareAndSet(null, error);
                    }
                });
    }

    private void failIfSendFailed() throws Exception {
        Exception error = sendError.get();
        if (error != null) {
            throw new org.apache.kafka.common.KafkaException(
                    "a record sent to " + settings.topic() + " failed: " + error, error);
        }
    }

    @Override
    public KafkaCommittable prepareCommit(long checkpointId) throws Exception {
        if (settings.mode() == KafkaSink.Mode.AT_LEAST_ONCE) {
            producer.flush();
        }
        failIfSendFailed();
        return null;
    }

    @Override
    public void commit(KafkaCommittable committable) {
        // Nothing is ever prepared.
    }

    @Override
    public void recoverOwned(List<KafkaCommittable> committed, int subtask, int parallelism) {
        // No transactions to end.
    }

    @Override
    public void close() {
        producer.close(CLOSE_TIMEOUT);
    }
}
