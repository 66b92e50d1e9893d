package dev.weir.log;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Captures what is printed to standard error (where the test logger writes WARNs) during a run. */
final class StandardError {
    private StandardError() {}

    /** Runs {@code action} and returns what it printed to standard error (also passed through). */
    static String during(Runnable action) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        String text = captured.toString(StandardCharsets.UTF_8);
        original.print(text);
        return text;
    }
}
