package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a job instance is written into, and read back from, offset metadata. */
class JobInstanceTest {
    @Test
    void anInstanceSurvivesTheMetadataOfAClaimAndOfProgress() {
        JobInstance instance =
                new JobInstance("6f1c-42", "orders", "/var/weir/orders=1/chk", "host-a");
        assertThat(JobInstance.decode(instance.encodeClaim())).hasValue(instance);
        assertThat(JobInstance.decode(KafkaTransactions.progressMetadata(instance)))
                .hasValue(instance);
    }

    @Test
    void progressWrittenBeforeInstancesWereRecordedNamesNone() {
        assertThat(JobInstance.decode(KafkaTransactions.PROGRESS_METADATA)).isEmpty();
        assertThat(JobInstance.decode(KafkaTransactions.progressMetadata(null))).isEmpty();
        assertThat(JobInstance.decode("")).isEmpty();
        assertThat(JobInstance.decode(null)).isEmpty();
    }

    @Test
    void longOrMultiLineFieldsStayWithinTheBrokersMetadataLimitAndDoNotBreakTheFormat() {
        String longDirectory = "/d".repeat(3_000);
        JobInstance odd = new JobInstance("id-7", "job\ninstance=forged", longDirectory, "h");
        String metadata = odd.encodeClaim();
        assertThat(metadata.length()).isLessThan(4096); // offset.metadata.max.bytes by default
        JobInstance decoded = JobInstance.decode(metadata).orElseThrow();
        assertThat(decoded.instanceId()).isEqualTo("id-7");
        assertThat(decoded.job()).isEqualTo("job instance=forged");
        assertThat(decoded.directory()).startsWith("/d/d").endsWith("...");
    }
}
