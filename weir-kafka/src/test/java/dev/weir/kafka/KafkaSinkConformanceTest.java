package dev.weir.kafka;

import dev.weir.api.sink.Sink;
import dev.weir.sink.ExactlyOnceSinkConformance;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.TransactionListing;

/**
 * The exactly-once sink conformance suite against a real broker: whatever the failure, a
 * read_committed consumer of the topic sees every record once, and no transaction of the sink is
 * left open.
 */
class KafkaSinkConformanceTest extends ExactlyOnceSinkConformance {
    private final Map<Path, String> topics = new HashMap<>();

    private String topic(Path output) {
        return topics.computeIfAbsent(output, o -> TestKafka.newTopic("sink-conformance", 3));
    }

    @Override
    protected Sink<String> createSink(Path output) {
        String topic = topic(output);
        return KafkaSink.to(TestKafka.bootstrap(), topic, KafkaSerializer.strings())
                .transactionalIdPrefix(topic);
    }

    @Override
    protected List<String> readCommitted(Path output) {
        return TestKafka.readCommitted(topic(output));
    }

    @Override
    protected List<String> dangling(Path output) {
        try (KafkaTransactions cluster =
                KafkaTransactions.connect(TestKafka.bootstrap(), Map.of())) {
            return cluster.open(topic(output)).stream()
                    .map(TransactionListing::transactionalId)
                    .toList();
        }
    }
}
