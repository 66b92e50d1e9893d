package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lecture's scenario on a local Flink cluster: the same pipeline, the same result. */
class FlinkLectureStoryTest {
    @TempDir Path dir;

    @Test
    void onFlinkACrashAtSevenRestoresOffsetFiveWithEvenSixOddNineAndEndsEvenThirtyOddTwentyFive()
            throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Map<String, Long> result;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            result = FlinkLectureStory.run(dir, out);
        }
        List<String> lines = Arrays.asList(bytes.toString(StandardCharsets.UTF_8).split("\n"));

        assertThat(result).containsExactlyInAnyOrderEntriesOf(Map.of("even", 30L, "odd", 25L));
        assertThat(lines)
                .anyMatch(
                        l ->
                                l.matches(
                                        "checkpoint \\d+ complete \\(Flink\\): offset=5 even=6 odd=9"));
        assertThat(lines).anyMatch(l -> l.startsWith("crash: injected failure while processing 7"));
        int restoredAt = DemoCommandTest.indexOf(lines, "restored");
        assertThat(lines.get(restoredAt)).startsWith("restored Flink's checkpoint: offset=5");
        assertThat(lines.subList(restoredAt, lines.size()))
                .contains(
                        "  state read back from the checkpoint: even=6",
                        "  state read back from the checkpoint: odd=9",
                        "  processed 6 -> even=12",
                        "  processed 7 -> odd=16");
        assertThat(lines).filteredOn(l -> l.startsWith("  processed 7")).hasSize(1);
    }
}
