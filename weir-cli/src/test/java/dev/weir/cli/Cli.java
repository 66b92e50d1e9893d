package dev.weir.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the {@code weir} command line through its picocli entry, as {@code main} does. */
final class Cli {
    /** What a run printed and returned. */
    record Result(int status, String out, String err) {}

    private Cli() {}

    static Result run(String stdin, String... args) {
        return run(stdin, new ByteArrayOutputStream(), args);
    }

    /** Runs with standard output going to {@code out} (which tests may watch while it runs). */
    static synchronized Result run(String stdin, OutputStream out, String... args) {
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        InputStream originalIn = System.in;
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        int status;
        try {
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
            status = WeirCli.commandLine().execute(args);
        } finally {
            System.setIn(originalIn);
            System.setOut(originalOut);
            System.setErr(originalErr);
        }
        return new Result(
                status,
                out instanceof ByteArrayOutputStream bytes
                        ? bytes.toString(StandardCharsets.UTF_8)
                        : "",
                errors.toString(StandardCharsets.UTF_8));
    }
}
