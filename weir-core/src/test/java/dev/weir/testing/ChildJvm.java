package dev.weir.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a class of the test class path in a child JVM, optionally with a fault point armed, so a
 * test can kill it with SIGKILL (or let it kill itself) and start it again.
 */
public final class ChildJvm {
    private ChildJvm() {}

    /**
     * Starts {@code main} with {@code args}; output goes to {@code log} (appended).
     *
     * @param fault a {@code weir.fault} spec such as {@code barrier.aligned:5}, or null
     */
    public static Process start(Class<?> main, String fault, File log, String... args)
            throws IOException {
        return start(main, fault, "-Xmx256m", log, args);
    }

    /** Like {@link #start(Class, String, File, String...)} with the heap flag {@code heap}. */
    public static Process start(Class<?> main, String fault, String heap, File log, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add(heap);
        command.add("-XX:TieredStopAtLevel=1");
        if (fault != null) {
            command.add("-Dweir.fault=" + fault);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
                .start();
    }

    /** Starts {@code main} with {@code args}, its output readable from the returned process. */
    public static Process startPiped(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }
}
