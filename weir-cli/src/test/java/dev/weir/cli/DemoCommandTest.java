package dev.weir.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.codec.Codecs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lecture's scenario, exactly. */
class DemoCommandTest {
    @TempDir Path dir;

    @Test
    void snapshotAfterFiveHoldsOffsetFiveEvenSixOddNineAndACrashAtSevenReplaysSixAndSeven()
            throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Map<String, Long> result;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            result = DemoCommand.runLectureStory(dir, out);
        }
        List<String> lines = Arrays.asList(bytes.toString(StandardCharsets.UTF_8).split("\n"));

        assertThat(result).containsExactlyInAnyOrderEntriesOf(Map.of("even", 30L, "odd", 25L));
        assertThat(lines)
                .anyMatch(l -> l.startsWith("checkpoint 1 complete: offset=5 even=6 odd=9"));
        assertThat(lines)
                .anyMatch(l -> l.startsWith("restored checkpoint 1: offset=5 even=6 odd=9"));
        int restoredAt = indexOf(lines, "restored");
        assertThat(lines.subList(restoredAt, lines.size()))
                .filteredOn(l -> l.startsWith("  processed"))
                .first()
                .isEqualTo("  processed 6 -> even=12");
        assertThat(lines).filteredOn(l -> l.equals("  processed 6 -> even=12")).hasSize(2);
        assertThat(lines).filteredOn(l -> l.startsWith("  processed 7")).hasSize(1);

        CheckpointView checkpoint = CheckpointView.open(dir.resolve("chk-00000000001"));
        assertThat(checkpoint.offsets("numbers")).containsExactly(Map.entry("numbers", 5L));
        assertThat(checkpoint.valueState("sum", "value", Codecs.LONG))
                .containsExactlyInAnyOrderEntriesOf(Map.of("even", 6L, "odd", 9L));
    }

    static int indexOf(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starts with " + prefix);
    }

    @Test
    void aRestartIsLoggedAtWarnNamingTheFailure() throws Exception {
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        PrintStream originalErr = System.err;
        try (PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, UTF_8);
                PrintStream err = new PrintStream(errors, true, UTF_8)) {
            System.setErr(err);
            DemoCommand.runLectureStory(dir, out);
        } finally {
            System.setErr(originalErr);
        }
        assertThat(errors.toString(UTF_8).lines())
                .anyMatch(
                        line ->
                                line.contains("WARN")
                                        && line.contains("job even-odd failed")
                                        && line.contains("injected failure while processing 7")
                                        && line.contains("restart 1"));
    }

    @Test
    void withADashboardTheFinishedJobStaysObservableWithItsCheckpointAndRestartCause()
            throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        java.util.concurrent.atomic.AtomicReference<dev.weir.dashboard.WeirDashboard> served =
                new java.util.concurrent.atomic.AtomicReference<>();
        Map<String, Long> result;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            result = DemoCommand.runLectureStory(dir, out, 0, served);
        }
        try (dev.weir.dashboard.WeirDashboard dashboard = served.get()) {
            assertThat(result).containsExactlyInAnyOrderEntriesOf(Map.of("even", 30L, "odd", 25L));
            assertThat(bytes.toString(StandardCharsets.UTF_8))
                    .contains("dashboard: http://127.0.0.1:" + dashboard.port() + "/");

            java.net.http.HttpResponse<String> response =
                    java.net.http.HttpClient.newHttpClient()
                            .send(
                                    java.net.http.HttpRequest.newBuilder(
                                                    dashboard.uri().resolve("api/state"))
                                            .build(),
                                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            com.fasterxml.jackson.databind.JsonNode state =
                    new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body());
            assertThat(state.get("job").asText()).isEqualTo("even-odd");
            assertThat(state.get("done").asBoolean()).isTrue();
            assertThat(state.get("steps"))
                    .extracting(s -> s.get("name").asText())
                    .containsExactly("numbers", "sum", "sums");
            assertThat(state.at("/checkpoints/0/id").asLong()).isEqualTo(1);
            assertThat(state.at("/restarts/count").asInt()).isEqualTo(1);
            assertThat(state.at("/restarts/events/0/cause").asText())
                    .isEqualTo(
                            "java.lang.IllegalStateException: injected failure while processing 7");
        }
    }

    @Test
    void dashboardOptionsAreValidated() {
        picocli.CommandLine cli = new picocli.CommandLine(new DemoCommand());
        cli.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
        assertThat(cli.execute("--dashboard", "--dashboard-seconds", "-1")).isEqualTo(2);
        assertThat(cli.execute("--dashboard", "--dashboard-port", "70000")).isEqualTo(2);
        assertThat(cli.execute("--dashboard", "--runner", "flink")).isEqualTo(2);
    }
}
