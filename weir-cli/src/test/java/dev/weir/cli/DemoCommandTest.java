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
}
