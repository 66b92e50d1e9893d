package dev.weir.flink.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFlinkClusterTest {
    @TempDir Path temp;

    /**
     * A JobManager that exits while the cluster starts is named with the lines of its log that say
     * why: the log is gone with a test's directory by the time anyone reads the failure.
     */
    @Test
    void theErrorOfAJobManagerThatExitedQuotesItsLog() throws Exception {
        Path log = temp.resolve("jobmanager.log");
        Files.writeString(
                log,
                String.join(
                        "\n",
                        "INFO  Starting StandaloneSessionClusterEntrypoint",
                        "ERROR Could not start cluster entrypoint StandaloneSessionClusterEntrypoint.",
                        "java.net.BindException: Address already in use",
                        "\tat sun.nio.ch.Net.bind0(Native Method)",
                        "INFO  Shutting down"));

        assertThat(LocalFlinkCluster.problemsIn(log))
                .contains("Could not start cluster entrypoint")
                .contains("java.net.BindException: Address already in use")
                .doesNotContain("Net.bind0")
                .doesNotContain("Shutting down");
        assertThat(LocalFlinkCluster.problemsIn(temp.resolve("missing.log")))
                .startsWith("(unreadable");
    }
}
