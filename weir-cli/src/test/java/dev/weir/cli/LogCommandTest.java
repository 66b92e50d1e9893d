package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class LogCommandTest {
    @TempDir Path dir;

    String run(String stdin, String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        InputStream originalIn = System.in;
        PrintStream originalOut = System.out;
        try {
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            int status = new CommandLine(new WeirCli()).execute(args);
            assertThat(status).isZero();
        } finally {
            System.setIn(originalIn);
            System.setOut(originalOut);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void createAppendTailAndOffsetsRoundTripLinesFromStandardInput() {
        String d = dir.toString();
        assertThat(run("", "log", "--dir", d, "create", "events", "--partitions", "2"))
                .contains("topic events has 2 partition(s)");
        assertThat(
                        run(
                                "alpha\nbeta\ngamma\n",
                                "log",
                                "--dir",
                                d,
                                "append",
                                "events",
                                "--partition",
                                "1"))
                .contains("appended 3 record(s) to events-1 at offsets 0..2");
        assertThat(run("", "log", "--dir", d, "tail", "events", "--partition", "1", "--from", "1"))
                .isEqualTo("1\tbeta\n2\tgamma\n");
        assertThat(run("", "log", "--dir", d, "offsets", "events"))
                .isEqualTo("events-0 start=0 end=0\nevents-1 start=0 end=3\n");
    }
}
