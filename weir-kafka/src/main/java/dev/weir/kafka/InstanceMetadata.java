package dev.weir.kafka;

import dev.weir.api.sink.JobInstance;
import java.util.Optional;

/**
 * How a Kafka sink records a {@link JobInstance} next to its transactions: as offset metadata, in
 * the claim on its transactional id prefix and in its progress offsets (see {@link
 * KafkaTransactions}): a header line, then the instance's {@link JobInstance#lines lines}.
 */
final class InstanceMetadata {
    private static final String CLAIM_HEADER = "weir sink prefix owner";
    private static final int MAX_FIELD = 900; // offset metadata is at most 4096 bytes by default

    private InstanceMetadata() {}

    /** As offset metadata: {@code header}, then {@code key=value} lines. */
    static String encode(JobInstance instance, String header) {
        return header + "\n" + instance.lines(MAX_FIELD);
    }

    /** As the metadata of a claim. */
    static String encodeClaim(JobInstance instance) {
        return encode(instance, CLAIM_HEADER);
    }

    /** The instance in offset metadata written by {@link #encode}, if it names one. */
    static Optional<JobInstance> decode(String metadata) {
        return JobInstance.parse(metadata);
    }
}
