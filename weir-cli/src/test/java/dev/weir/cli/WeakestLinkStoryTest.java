package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WeakestLinkStoryTest {
    @TempDir Path dir;

    @Test
    void eachPairingShowsItsGuaranteeAndTheMeasuredLossOrDuplication() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<WeakestLinkStory.Outcome> outcomes;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            outcomes = WeakestLinkStory.run(dir, out);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);

        assertThat(outcomes).hasSize(3);
        WeakestLinkStory.Outcome exactlyOnce = outcomes.get(0);
        WeakestLinkStory.Outcome console = outcomes.get(1);
        WeakestLinkStory.Outcome socket = outcomes.get(2);
        assertThat(exactlyOnce.line())
                .isEqualTo(
                        "SCENARIO source=log sink=file guarantee=EXACTLY_ONCE lost=0 duplicates=0");
        assertThat(console.guarantee()).isEqualTo("AT_LEAST_ONCE");
        assertThat(console.lost()).isZero();
        assertThat(console.duplicates()).isPositive();
        assertThat(socket.guarantee()).isEqualTo("AT_MOST_ONCE");
        assertThat(socket.lost()).isPositive();
        assertThat(socket.duplicates()).isZero();
        for (WeakestLinkStory.Outcome outcome : outcomes) {
            assertThat(printed).contains(outcome.line() + "\n");
        }
        assertThat(printed)
                .contains("limited by sink 'out' (console)")
                .contains("limited by source 'input' (socket)");
    }
}
