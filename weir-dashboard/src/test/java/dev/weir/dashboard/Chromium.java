package dev.weir.dashboard;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Debian's headless chromium, run as a child process (see ../shared/COMPONENTS.md). */
final class Chromium {
    static final String INSTALL =
            "install Debian's chromium: apt-get update && apt-get install -y chromium";

    private Chromium() {}

    /** The binary, or an AssertionError telling how to install it (a missing browser fails). */
    static Path binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            for (String name : new String[] {"chromium", "chromium-browser"}) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        throw new AssertionError(
                "the browser tests need chromium, which is not on PATH; " + INSTALL);
    }

    /** Runs chromium headless on {@code url} with {@code extra} flags; returns its stdout. */
    static String run(Path profile, String url, String... extra)
            throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(
                        List.of(
                                binary().toString(),
                                "--headless",
                                "--no-sandbox",
                                "--disable-gpu",
                                "--disable-quic",
                                "--no-first-run",
                                "--disable-background-networking",
                                "--disable-component-update",
                                "--disable-sync",
                                "--disable-dev-shm-usage",
                                "--user-data-dir=" + profile,
                                "--window-size=1280,900",
                                "--virtual-time-budget=3000"));
        command.addAll(List.of(extra));
        command.add(url);
        Path err = Files.createTempFile(profile.getParent(), "chromium", ".err");
        Path stdout = Files.createTempFile(profile.getParent(), "chromium", ".out");
        Process process =
                new ProcessBuilder(command)
                        .redirectError(err.toFile())
                        .redirectOutput(stdout.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .start();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError("chromium did not finish within 60 s: " + command);
            }
        } finally {
            process.destroyForcibly();
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(
                    "chromium exited with "
                            + process.exitValue()
                            + ": "
                            + Files.readString(err, StandardCharsets.UTF_8));
        }
        return Files.readString(stdout, StandardCharsets.UTF_8);
    }
}
