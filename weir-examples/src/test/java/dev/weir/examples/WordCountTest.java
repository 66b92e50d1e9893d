package dev.weir.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.sink.FileSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** WordCount commits exactly the counts of its input, and a second run adds nothing. */
class WordCountTest {
    @TempDir Path dir;

    @Test
    void countsEveryWordOnceAndASecondRunAddsNothing() throws Exception {
        Path input = Files.createDirectories(dir.resolve("in"));
        Path output = dir.resolve("out");
        Path checkpoints = dir.resolve("chk");
        List<String> vocabulary =
                List.of("weir", "stream", "river", "Exactly", "once", "checkpoint", "l'eau", "42");
        Map<String, Long> expected = new TreeMap<>();
        Random random = new Random(16);
        int occurrences = 0;
        for (int file = 0; file < 5; file++) {
            List<String> lines = new ArrayList<>();
            for (int line = 0; line < 2_000; line++) {
                StringBuilder text = new StringBuilder();
                int words = random.nextInt(8);
                for (int w = 0; w < words; w++) {
                    String word = vocabulary.get(random.nextInt(vocabulary.size()));
                    text.append(word).append(random.nextBoolean() ? " " : ", ");
                    expected.merge(word.toLowerCase(java.util.Locale.ROOT), 1L, Long::sum);
                    occurrences++;
                }
                lines.add(text.toString());
            }
            Files.write(input.resolve("part-" + file + ".txt"), lines);
        }

        WordCount.pipeline(input, output, checkpoints).run();

        assertThat(WordCount.totals(output)).isEqualTo(expected);
        List<String> committed = FileSink.readCommitted(output);
        // One line per occurrence: every count from 1 to the total, once, for every word.
        assertThat(committed).hasSize(occurrences).doesNotHaveDuplicates();

        WordCount.pipeline(input, output, checkpoints).run();

        assertThat(FileSink.readCommitted(output)).containsExactlyElementsOf(committed);
    }
}
