package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.sink.JobInstance;
import org.junit.jupiter.api.Test;

/** How a job instance is written into, and read back from, offset metadata. */
class InstanceMetadataTest {
    @Test
    void anInstanceSurvivesTheMetadataOfAClaimAndOfProgress() {
        JobInstance instance =
                new JobInstance("6f1c-42", "orders", "/var/weir/orders=1/chk", "host-a");
        assertThat(InstanceMetadata.decode(InstanceMetadata.encodeClaim(instance)))
                .hasValue(instance);
        assertThat(InstanceMetadata.decode(KafkaTransactions.progressMetadata(instance)))
                .hasValue(instance);
    }

    @Test
    void progressWrittenBeforeInstancesWereRecordedNamesNone() {
        assertThat(InstanceMetadata.decode(KafkaTransactions.PROGRESS_METADATA)).isEmpty();
        assertThat(InstanceMetadata.decode(KafkaTransactions.progressMetadata(null))).isEmpty();
        assertThat(InstanceMetadata.decode("")).isEmpty();
        assertThat(InstanceMetadata.decode(null)).isEmpty();
    }

    @Test
    void longOrMultiLineFieldsStayWithinTheBrokersMetadataLimitAndDoNotBreakTheFormat() {
        String longDirectory = "/d".repeat(3_000);
        JobInstance odd = new JobInstance("id-7", "job\ninstance=forged", longDirectory, "h");
        String metadata = InstanceMetadata.encodeClaim(odd);
        assertThat(metadata.length()).isLessThan(4096); // offset.metadata.max.bytes by default
        JobInstance decoded = InstanceMetadata.decode(metadata).orElseThrow();
        assertThat(decoded.instanceId()).isEqualTo("id-7");
        assertThat(decoded.job()).isEqualTo("job instance=forged");
        assertThat(decoded.directory()).startsWith("/d/d").endsWith("...");
    }
}
