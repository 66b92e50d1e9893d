package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.Pipeline;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's first example is the code below, and it runs. */
class ReadmeExampleTest {
    static final String EXAMPLE =
            """
            Pipeline pipeline = Pipeline.create("even-odd");
            pipeline.source("numbers", Sources.sequence(1, 10))
                    .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                    .reduce("sum", Long::sum).sink("out", Sinks.console());
            pipeline.run();
            """;

    @Test
    void theReadmeShowsThisExampleFirst() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        int firstJava = readme.indexOf("```java\n");
        assertThat(readme.substring(firstJava + "```java\n".length())).startsWith(EXAMPLE);
        assertThat(readme.indexOf("<artifactId>weir-core</artifactId>")).isLessThan(firstJava);
        assertThat(readme).contains("./weir demo ", "mvn -B verify ");
    }

    @Test
    void theExampleRunsAndEndsWithThirtyAndTwentyFive() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            // EXAMPLE, as written there:
            Pipeline pipeline = Pipeline.create("even-odd");
            pipeline.source("numbers", Sources.sequence(1, 10))
                    .keyBy(n -> n % 2 == 0 ? "even" : "odd")
                    .reduce("sum", Long::sum)
                    .sink("out", Sinks.console());
            pipeline.run();
        } finally {
            System.setOut(original);
        }
        assertThat(printed.toString(StandardCharsets.UTF_8).lines())
                .hasSize(10)
                .contains("30", "25");
    }
}
