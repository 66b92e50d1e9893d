package dev.weir.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.Pipeline;
import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.log.LogOptions.FsyncPolicy;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.LogSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.internal.log.PartitionLog;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class LogSinkConformanceTest extends ExactlyOnceSinkConformance {
    @Override
    protected Sink<String> createSink(Path output) {
        try (DurableLog log = DurableLog.open(output, LogOptions.defaults())) {
            log.createTopic("out", 2);
        }
        return LogSink.to(output, "out", Codecs.STRING);
    }

    @Override
    protected List<String> readCommitted(Path output) throws Exception {
        Pipeline reader = Pipeline.create("reader");
        CollectSink<String> sink = Sinks.collect();
        reader.source("log", Sources.log(output, "out", Codecs.STRING)).sink("collect", sink);
        reader.run();
        return sink.results();
    }

    @Override
    protected List<String> dangling(Path output) throws Exception {
        try (Stream<Path> files = Files.list(output.resolve(".staging").resolve("out"))) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void aTornTransactionIsNeverReadAndItsRepublicationIsReadOnce() throws Exception {
        Path live = temp.resolve("live");
        Path dir = temp.resolve("torn");
        List<byte[]> batch =
                List.of(
                        Codecs.STRING.toBytes("a"),
                        Codecs.STRING.toBytes("b"),
                        Codecs.STRING.toBytes("c"));
        try (DurableLog log =
                DurableLog.open(live, LogOptions.defaults().withFsync(FsyncPolicy.NEVER))) {
            log.createTopic("t", 1);
            log.append("t", 0, List.of(Codecs.STRING.toBytes("plain")));
            log.flush();
            log.partition("t", 0).appendTransaction(batch, 42);
            copyTree(live, dir); // a power cut before the transaction was forced: a crash image
        }
        Path segment = dir.resolve("t").resolve("0").resolve(String.format("%020d.log", 0));
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            file.setLength(file.length() - 10); // the COMMIT marker is torn
        }
        assertThat(readTopic(dir)).containsExactly("plain");

        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.partition("t", 0).appendTransaction(batch, 42);
            assertThat(log.endOffset("t", 0)).isEqualTo(1 + 4 + 5);
        }
        assertThat(readTopic(dir)).containsExactly("plain", "a", "b", "c");
        assertThat(PartitionLog.TXN_COMMIT).isEqualTo((byte) 3);
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else if (!path.getFileName().toString().equals(".lock")) {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    static List<String> readTopic(Path dir) throws Exception {
        Pipeline reader = Pipeline.create("torn-reader");
        CollectSink<String> sink = Sinks.collect();
        reader.source("log", Sources.log(dir, "t", Codecs.STRING)).sink("collect", sink);
        reader.run();
        return sink.results();
    }
}
