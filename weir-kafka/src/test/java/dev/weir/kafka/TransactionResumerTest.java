package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.utils.ProducerIdAndEpoch;
import org.junit.jupiter.api.Test;

/**
 * The one class that reaches into the producer's internals. If a kafka-clients upgrade removes or
 * renames what it uses, {@link #theClientHasEveryInternalMemberTheResumerUses} fails with a message
 * naming the member, and the end-to-end tests below show whether resuming still commits.
 */
class TransactionResumerTest {
    @Test
    void theClientHasEveryInternalMemberTheResumerUses() {
        // Throws IllegalStateException naming the client version and the missing member.
        TransactionResumer.requireCompatibleClient();
    }

    @Test
    void aPreCommittedTransactionIsCommittedFromANewProducerByItsIdAndEpoch() {
        String topic = TestKafka.newTopic("resume", 1);
        String prefix = topic;
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            KafkaCommittable committable = preCommit(cluster, prefix, topic, 7, "a", "b", "c");
            assertThat(TestKafka.readCommittedNow(topic)).as("open: invisible").isEmpty();

            assertThat(cluster.commit(committable, prefix))
                    .isEqualTo(KafkaTransactions.Outcome.COMMITTED);
            assertThat(TestKafka.readCommitted(topic)).containsExactly("a", "b", "c");
            assertThat(cluster.committedCheckpoint(prefix, 0)).isEqualTo(7);

            // Again, as after a second crash: recognised as done, nothing written twice.
            assertThat(cluster.commit(committable, prefix))
                    .isEqualTo(KafkaTransactions.Outcome.ALREADY_COMMITTED);
            assertThat(TestKafka.readCommitted(topic)).containsExactly("a", "b", "c");
            assertThat(cluster.open(prefix)).isEmpty();
        }
    }

    @Test
    void aTransactionAbortedByFencingIsReportedLostNotCommitted() {
        String topic = TestKafka.newTopic("resume-lost", 1);
        String prefix = topic;
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            KafkaCommittable committable = preCommit(cluster, prefix, topic, 3, "x");
            cluster.abort(committable.transactionalId());

            assertThat(cluster.commit(committable, prefix))
                    .isEqualTo(KafkaTransactions.Outcome.LOST);
            assertThat(TestKafka.readCommitted(topic)).isEmpty();
        }
    }

    @Test
    void resumingAProducerThatIsNotTransactionalIsRefused() {
        assertThatThrownBy(
                        () -> {
                            try (KafkaProducer<byte[], byte[]> plain =
                                    new KafkaProducer<>(
                                            Map.<String, Object>of(
                                                    "bootstrap.servers", TestKafka.bootstrap(),
                                                    "key.serializer",
                                                            org.apache.kafka.common.serialization
                                                                    .ByteArraySerializer.class,
                                                    "value.serializer",
                                                            org.apache.kafka.common.serialization
                                                                    .ByteArraySerializer.class))) {
                                TransactionResumer.resume(plain, 1, (short) 0);
                            }
                        })
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not transactional");
    }

    /** Writes {@code values} in a transaction with progress {@code checkpointId}, left open. */
    static KafkaCommittable preCommit(
            KafkaTransactions cluster,
            String prefix,
            String topic,
            long checkpointId,
            String... values) {
        String id = KafkaTransactions.transactionalId(prefix, 0, 0);
        KafkaProducer<byte[], byte[]> producer = cluster.producer(id, 60_000);
        try {
            producer.initTransactions();
            producer.beginTransaction();
            long started = System.currentTimeMillis();
            for (String value : List.of(values)) {
                producer.send(new ProducerRecord<>(topic, TestKafka.utf8(value)));
            }
            producer.sendOffsetsToTransaction(
                    KafkaTransactions.progressOffsets(topic, checkpointId),
                    cluster.progressGroupMetadata(prefix, 0));
            producer.flush();
            ProducerIdAndEpoch ids = TransactionResumer.current(producer);
            return new KafkaCommittable(
                    id, topic, ids.producerId, ids.epoch, 0, checkpointId, started, 60_000);
        } catch (KafkaException e) {
            throw e;
        } finally {
            producer.close(Duration.ZERO); // as a crash: the transaction stays open
        }
    }
}
