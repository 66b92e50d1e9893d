package dev.weir.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weir verify --runner flink} with a few kills: the verify job on a standalone Flink cluster
 * (a JobManager and two TaskManagers, child JVMs), TaskManagers SIGKILLed at random times and
 * started again, the committed output exactly-once.
 */
class FlinkVerifyIT {
    @TempDir Path dir;

    /**
     * The file sink, three kills (about 45 s, most of it the cluster's start and Flink's recovery);
     * {@code weir verify --runner flink} runs the log and postgres sinks the same way.
     */
    @Test
    void taskManagerKillsLeaveTheCommittedOutputExactlyOnce() throws Exception {
        String sink = "file";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Verifier.Report report =
                new Verifier(
                                new Verifier.Options(
                                        "log",
                                        sink,
                                        3,
                                        VerifyIT.SEED,
                                        12_000,
                                        50,
                                        3_000,
                                        dir,
                                        null,
                                        List.of(),
                                        null,
                                        "count",
                                        "flink"),
                                out)
                        .run();
        String log = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(log);

        assertThat(report.findings().problems()).as(log).isEmpty();
        assertThat(report.kills()).as(log).isEqualTo(3);
        assertThat(report.findings().records()).as(log).isPositive();
        assertThat(VerifyIT.lastLine(bytes))
                .startsWith(
                        "verify: source=log sink=" + sink + " runner=flink kills=3 fault_points=0")
                .contains("lost=0 duplicated=0 reordered=0 dangling=0");
    }
}
