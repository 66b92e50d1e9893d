package dev.weir.examples;

import dev.weir.api.Guarantee;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.source.Sources;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Word count over a directory of text files, exactly-once into files.
 *
 * <p>Shows a replayable file source ({@code Sources.files}: the offset is a file and a byte
 * position), {@code flatMap} into words, a keyed running count held in keyed state, and {@link
 * FileSink}, which commits its files by atomic renames once the checkpoint that covers them is
 * complete. Each committed line is {@code word,count} after one more occurrence of the word, so the
 * greatest count per word is its total. Started again on the same checkpoint directory, the job
 * restores its ended splits and adds nothing.
 *
 * <p>Run: {@code java -cp ... dev.weir.examples.WordCount <input dir> <output dir> <checkpoint
 * dir>}
 */
public final class WordCount {
    private WordCount() {}

    /** Builds the word count pipeline; {@link Pipeline#run()} runs it. */
    public static Pipeline pipeline(Path input, Path output, Path checkpoints) {
        Pipeline pipeline =
                Pipeline.create("word-count")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(200), checkpoints));
        pipeline.source("lines", Sources.files(input))
                .<String>flatMap(
                        (line, out) ->
                                Arrays.stream(
                                                line.toLowerCase(Locale.ROOT)
                                                        .split("[^\\p{L}\\p{N}']+"))
                                        .filter(word -> !word.isEmpty())
                                        .forEach(out::collect))
                .keyBy(word -> word)
                .<Long, String>process(
                        "count",
                        Codecs.LONG,
                        (word, ignored, count, out) -> {
                            long next = count.value() == null ? 1 : count.value() + 1;
                            count.update(next);
                            out.collect(word + "," + next);
                        })
                .sink("counts", FileSink.to(output));
        return pipeline.requireGuarantee(Guarantee.EXACTLY_ONCE);
    }

    /**
     * The total per word in the committed output of {@code output}: the greatest count of each
     * word's lines.
     */
    public static Map<String, Long> totals(Path output) throws IOException {
        Map<String, Long> totals = new TreeMap<>();
        for (String line : FileSink.readCommitted(output)) {
            int comma = line.lastIndexOf(',');
            totals.merge(
                    line.substring(0, comma), Long.parseLong(line.substring(comma + 1)), Math::max);
        }
        return totals;
    }

    /**
     * Counts the words of the files in {@code args[0]} into {@code args[1]}, checkpointing into
     * {@code args[2]}, and prints the totals.
     */
    public static void main(String[] args) throws InterruptedException, IOException {
        if (args.length != 3) {
            System.err.println("usage: WordCount <input dir> <output dir> <checkpoint dir>");
            System.exit(2);
        }
        Path output = Path.of(args[1]);
        JobResult result = pipeline(Path.of(args[0]), output, Path.of(args[2])).run();
        totals(output).forEach((word, count) -> System.out.println(word + " " + count));
        System.out.println("done in " + result.duration().toMillis() + " ms");
    }
}
