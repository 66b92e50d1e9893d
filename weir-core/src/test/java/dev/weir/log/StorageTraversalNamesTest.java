package dev.weir.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.sink.LogSink;
import dev.weir.api.source.Sources;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A topic name is a single directory name under the log directory: every lookup refuses names that
 * could reach another directory (issue 12, item 4), not only {@code createTopic}.
 */
class StorageTraversalNamesTest {
    @TempDir Path temp;
    Path victimLog;
    Path log;

    static Stream<String> traversalNames() {
        return Stream.of(
                "..",
                ".",
                "../x",
                "../A/victim",
                "a/b",
                "a\\b",
                "/etc/passwd",
                "/tmp",
                "",
                "a\0b",
                "\0",
                "x".repeat(101),
                "x".repeat(5000),
                "%2e%2e",
                "%2e%2e%2fx",
                "\u2024\u2024", // ONE DOT LEADER, twice: looks like ".."
                "\uff0e\uff0e", // FULLWIDTH FULL STOP, twice
                ".hidden",
                ".staging",
                ".lock",
                "..a",
                " ",
                "a b",
                "t\n");
    }

    @BeforeEach
    void twoLogsSideBySide() throws IOException {
        victimLog = temp.resolve("A");
        log = temp.resolve("B");
        try (DurableLog a = DurableLog.open(victimLog, LogOptions.defaults())) {
            a.createTopic("victim", 1);
            a.append("victim", 0, List.of("original".getBytes(StandardCharsets.UTF_8)));
        }
        try (DurableLog b = DurableLog.open(log, LogOptions.defaults())) {
            b.createTopic("t", 1);
        }
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("traversalNames")
    void everyLookupRefusesTheNameAndNothingOutsideTheLogChanges(String name) throws IOException {
        List<Path> before = files(temp);
        List<Consumer<DurableLog>> lookups = new ArrayList<>();
        lookups.add(l -> l.createTopic(name, 1));
        lookups.add(l -> l.append(name, 0, List.of(new byte[] {1})));
        lookups.add(l -> l.read(name, 0, 0, 10));
        lookups.add(l -> l.partitions(name));
        lookups.add(l -> l.hasTopic(name));
        lookups.add(l -> l.endOffset(name, 0));
        lookups.add(l -> l.startOffset(name, 0));
        lookups.add(l -> l.partition(name, 0));
        try (DurableLog b = DurableLog.open(log, LogOptions.defaults())) {
            for (Consumer<DurableLog> lookup : lookups) {
                assertThatThrownBy(() -> lookup.accept(b))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("is not allowed");
            }
        }
        assertThatThrownBy(() -> LogSink.to(log, name, Codecs.STRING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not allowed");
        assertThatThrownBy(() -> Sources.log(log, name, Codecs.STRING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not allowed");
        assertThatThrownBy(() -> Sources.logUnbounded(log, name, Codecs.STRING))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not allowed");

        assertThat(files(temp)).as("no file created or removed anywhere").isEqualTo(before);
        try (DurableLog a = DurableLog.open(victimLog, LogOptions.defaults())) {
            assertThat(a.endOffset("victim", 0)).as("the other log is untouched").isEqualTo(1);
        }
    }

    @Test
    void ordinaryNamesStillWork() {
        try (DurableLog b = DurableLog.open(log, LogOptions.defaults())) {
            for (String name : List.of("orders", "a.b", "a..b", "x-1_y", "x".repeat(100), "9")) {
                b.createTopic(name, 1);
                assertThat(b.append(name, 0, List.of(new byte[] {7}))).isZero();
                assertThat(b.read(name, 0, 0, 10)).hasSize(1);
            }
            assertThat(b.topics()).contains("orders", "a.b", "a..b", "9");
        }
    }

    /** Whatever a name is made of, if the check accepts it, it is one plain child directory. */
    @Property(tries = 3000)
    void aNameTheCheckAcceptsIsOneDirectoryInsideTheLog(
            @ForAll
                    @StringLength(max = 110)
                    @Chars({'.', '/', '\\', 'a', 'Z', '0', '-', '_', '%', ' ', ':', '~', '\0'})
                    @Chars({'\u2024', '\uff0e', '\u00e9'})
                    String name) {
        boolean accepted;
        try {
            DurableLog.checkTopicName(name);
            accepted = true;
        } catch (IllegalArgumentException e) {
            assertThat(e).hasMessageContaining("is not allowed");
            accepted = false;
        }
        Path root = Path.of("/weir/log");
        if (accepted) {
            Path resolved = root.resolve(name).normalize();
            assertThat(resolved.getParent()).isEqualTo(root);
            assertThat(resolved.getFileName().toString()).isEqualTo(name).doesNotStartWith(".");
            assertThat(name).hasSizeBetween(1, 100).matches("[\\x21-\\x7e]+");
        }
    }

    private static List<Path> files(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            return paths.map(root::relativize)
                    .filter(p -> !p.getFileName().toString().equals(".lock"))
                    .sorted()
                    .toList();
        }
    }
}
