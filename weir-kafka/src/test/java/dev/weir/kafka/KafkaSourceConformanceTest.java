package dev.weir.kafka;

import dev.weir.api.source.Source;
import dev.weir.source.ReplayableSourceConformance;
import java.util.ArrayList;
import java.util.List;

/** The replayable-source conformance suite against a real broker: bounded Kafka sources. */
class KafkaSourceConformanceTest extends ReplayableSourceConformance {
    @Override
    protected Source<String> createSource(List<String> records, int splits) {
        String topic = TestKafka.newTopic("conformance", splits);
        List<List<String>> parts = new ArrayList<>();
        for (int p = 0; p < splits; p++) {
            parts.add(new ArrayList<>());
        }
        for (int i = 0; i < records.size(); i++) {
            parts.get(i % splits).add(records.get(i));
        }
        for (int p = 0; p < splits; p++) {
            TestKafka.produce(topic, p, parts.get(p));
        }
        return KafkaSource.topics(TestKafka.bootstrap(), KafkaDeserializer.strings(), topic)
                .splitCount(splits)
                .bounded();
    }

    @Override
    protected Source<String> createSourceWithSplits(List<List<String>> splits) {
        int count = splits.size();
        String topic = TestKafka.newTopic("conformance-splits", count);
        for (int k = 0; k < count; k++) {
            TestKafka.produce(topic, partitionOfSplit(topic, k, count), splits.get(k));
        }
        return KafkaSource.topics(TestKafka.bootstrap(), KafkaDeserializer.strings(), topic)
                .splitCount(count)
                .bounded();
    }

    /**
     * The partition of a {@code count}-partition topic that split {@code k} of {@code count} reads.
     */
    static int partitionOfSplit(String topic, int k, int count) {
        for (int p = 0; p < count; p++) {
            if (SplitAssignment.owner(topic, p, count) == k) {
                return p;
            }
        }
        throw new AssertionError("no partition for split " + k);
    }
}
