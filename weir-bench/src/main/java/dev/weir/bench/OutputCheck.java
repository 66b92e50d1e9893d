package dev.weir.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Checks a file sink's committed output (files whose names do not start with a dot). */
final class OutputCheck {
    private OutputCheck() {}

    /** Fails unless the committed files under {@code dir} hold exactly {@code expected} lines. */
    static void expectLines(Path dir, long expected) throws IOException {
        long lines = 0;
        List<Path> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files =
                    walk.filter(Files::isRegularFile)
                            .filter(f -> !f.getFileName().toString().startsWith("."))
                            .toList();
        }
        byte[] buffer = new byte[1 << 16];
        for (Path file : files) {
            try (InputStream in = Files.newInputStream(file)) {
                for (int read; (read = in.read(buffer)) > 0; ) {
                    for (int i = 0; i < read; i++) {
                        if (buffer[i] == '\n') {
                            lines++;
                        }
                    }
                }
            }
        }
        if (lines != expected) {
            throw new IllegalStateException(
                    "committed output in "
                            + dir
                            + " holds "
                            + lines
                            + " lines, expected "
                            + expected);
        }
    }
}
