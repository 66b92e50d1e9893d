package dev.weir.verify;

import dev.weir.api.codec.Codecs;
import dev.weir.api.log.DurableLog;
import dev.weir.api.log.LogOptions;
import dev.weir.api.source.Source;
import dev.weir.api.source.Sources;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The verify job's input as each source kind holds it: the record numbers n = 1..N (record n is
 * {@link VerifyJob#input}{@code (n)}), with all records of a key in one split in ascending order,
 * so each key's records reach its state in seq order and the checker can demand that order.
 *
 * <ul>
 *   <li>{@code sequence}: {@link Sources#sequence} striped over {@link #sequenceSplits} splits, a
 *       divisor of the key count, so a key's numbers (n ≡ its position mod keys) stay in one split.
 *       The splits are equal and end together.
 *   <li>{@code log}: a topic of {@link #LOG_PARTITIONS} partitions of the embedded durable log;
 *       partition p holds the keys of a share proportional to p + 1, so partitions end one after
 *       another (the smallest at about a sixth of the run), three per source subtask.
 *   <li>{@code kafka}: a Kafka topic laid out like the log's ({@link KafkaVerify}), one split per
 *       partition.
 *   <li>{@code files}: one small file per key, read with {@link #LOG_PARTITIONS} splits ({@code
 *       Sources.files(dir, splits)}: split i reads the files whose name hashes to i); names are
 *       chosen so split p holds the same growing share of the keys as log partition p, so splits
 *       end one after another, and within a split files end one after another too.
 * </ul>
 *
 * <p>Every source is read with parallelism {@link #SOURCE_PARALLELISM}; each split is paced on its
 * own ({@link PacedSource}), so a split with fewer records ends sooner. The harness writes the
 * input once, before the rounds; the child JVMs only read it.
 */
final class VerifyInput {
    /** Source subtasks. */
    static final int SOURCE_PARALLELISM = 2;

    /** Partitions of the input topic (three per source subtask). */
    static final int LOG_PARTITIONS = 6;

    /** The input topic. */
    static final String TOPIC = "input";

    /** The source kinds. */
    static final List<String> SOURCES = List.of("sequence", "log", "files", "kafka");

    /**
     * Most distinct keys: the checker and every killed job hold arrays and state per key, the job
     * in a child JVM of 512 MB.
     */
    static final int MAX_KEYS = 1_000_000;

    /** Most input records per round: the checker holds every committed update in memory. */
    static final long MAX_RECORDS = 10_000_000;

    private VerifyInput() {}

    /** Refuses a record or key count larger than the verifier can hold, naming the option. */
    static void checkSizes(long records, int keys) {
        if (keys < 1 || keys > MAX_KEYS) {
            throw new IllegalArgumentException(
                    "--keys must be within 1..1000000 (the verifier holds state per key), not "
                            + keys);
        }
        if (records < 1 || records > MAX_RECORDS) {
            throw new IllegalArgumentException(
                    "--records must be within 1..10000000 (the checker holds every committed"
                            + " update in memory), not "
                            + records);
        }
    }

    /** Refuses a source kind or key count this input cannot be laid out for. */
    static void check(String source, int keys) {
        if (!SOURCES.contains(source)) {
            throw new IllegalArgumentException(
                    "unknown source '" + source + "'; use sequence, log, files or kafka");
        }
        int least = source.equals("sequence") ? SOURCE_PARALLELISM : LOG_PARTITIONS;
        if (keys < least) {
            throw new IllegalArgumentException(
                    "--source " + source + " needs at least " + least + " keys, not " + keys);
        }
    }

    /** True if the source's splits end at different times (the state the seeded bug needs). */
    static boolean splitsEndApart(String source) {
        return !source.equals("sequence");
    }

    /** The splits the job reads from the input in {@code dir} (each is paced on its own). */
    static int splitCount(String source, Path dir, long n, int keys) {
        if (source.equals("kafka")) {
            return LOG_PARTITIONS;
        }
        return unpaced(source, dir, n, keys).splits(SOURCE_PARALLELISM).size();
    }

    /**
     * How much longer than {@code records / rate} a run takes: its longest split sets it, and with
     * the uneven log and file layouts that split holds more than an even share.
     */
    static double runLengthFactor(String source) {
        return source.equals("sequence") ? 1.0 : 1.7;
    }

    /**
     * The largest divisor of {@code keys} up to 8: record n goes to split (n - 1) mod splits, and a
     * key's records are n ≡ its position mod keys, so each key stays in one split.
     */
    static int sequenceSplits(int keys) {
        for (int splits = 8; splits > 1; splits--) {
            if (keys % splits == 0) {
                return splits;
            }
        }
        return 1;
    }

    /**
     * The number of keys partition {@code p} holds: at least one, otherwise a share of the keys
     * proportional to p + 1; the last partition takes the rest.
     */
    static int logShare(int p, int keys) {
        int total = LOG_PARTITIONS * (LOG_PARTITIONS + 1) / 2;
        if (p < LOG_PARTITIONS - 1) {
            return Math.max(1, keys * (p + 1) / total);
        }
        int rest = keys;
        for (int q = 0; q < LOG_PARTITIONS - 1; q++) {
            rest -= logShare(q, keys);
        }
        return rest;
    }

    /** The partition holding {@code key}'s records. */
    static int logPartition(int key, int keys) {
        int end = 0;
        for (int p = 0; p < LOG_PARTITIONS; p++) {
            end += logShare(p, keys);
            if (key < end) {
                return p;
            }
        }
        throw new IllegalArgumentException("key " + key + " of " + keys);
    }

    /**
     * The name of {@code key}'s file: {@code in-<key>-<salt>}, the first salt whose name hashes to
     * the key's split (as log partition) as the file source computes it.
     */
    static String fileName(int key, int keys) {
        int split = logPartition(key, keys);
        for (int salt = 0; ; salt++) {
            String name = String.format("in-%05d-%d", key, salt);
            if (Math.floorMod(name.hashCode(), LOG_PARTITIONS) == split) {
                return name;
            }
        }
    }

    /** Writes the input of {@code source} into {@code dir} (nothing for the sequence). */
    static void write(String source, Path dir, long n, int keys, long seed) throws IOException {
        int[] order = VerifyJob.keyOrder(seed, keys);
        switch (source) {
            case "log" -> writeLog(dir, n, order);
            case "files" -> writeFiles(dir, n, order);
            default -> {}
        }
    }

    private static void writeLog(Path dir, long n, int[] order) {
        int keys = order.length;
        try (DurableLog log = DurableLog.open(dir, LogOptions.defaults())) {
            log.createTopic(TOPIC, LOG_PARTITIONS);
            List<List<byte[]>> batches = new ArrayList<>();
            for (int p = 0; p < LOG_PARTITIONS; p++) {
                batches.add(new ArrayList<>());
            }
            for (long i = 1; i <= n; i++) {
                int p = logPartition(VerifyJob.input(i, order).key(), keys);
                batches.get(p).add(Codecs.LONG.toBytes(i));
                if (batches.get(p).size() == 1000) {
                    log.append(TOPIC, p, batches.get(p));
                    batches.set(p, new ArrayList<>());
                }
            }
            for (int p = 0; p < LOG_PARTITIONS; p++) {
                if (!batches.get(p).isEmpty()) {
                    log.append(TOPIC, p, batches.get(p));
                }
            }
        }
    }

    /**
     * One file per key, written one after another (not all open at once: a million keys would
     * exceed the open-file limit).
     */
    private static void writeFiles(Path dir, long n, int[] order) throws IOException {
        int keys = order.length;
        Files.createDirectories(dir);
        StringBuilder[] texts = new StringBuilder[keys];
        for (long i = 1; i <= n; i++) {
            int key = VerifyJob.input(i, order).key();
            if (texts[key] == null) {
                texts[key] = new StringBuilder();
            }
            texts[key].append(i).append('\n');
        }
        for (int key = 0; key < keys; key++) {
            Files.writeString(
                    dir.resolve(fileName(key, keys)),
                    texts[key] == null ? "" : texts[key],
                    StandardCharsets.UTF_8);
            texts[key] = null;
        }
    }

    /** The built-in source over the input in {@code dir}, unpaced. */
    private static Source<?> unpaced(String source, Path dir, long n, int keys) {
        return switch (source) {
            case "sequence" -> Sources.sequence(1, n, sequenceSplits(keys), 0);
            case "log" -> Sources.log(dir, TOPIC, Codecs.LONG);
            case "files" -> Sources.files(dir, LOG_PARTITIONS);
            default -> throw new IllegalArgumentException("unknown source '" + source + "'");
        };
    }

    /**
     * The job's source of record numbers for {@code sequence} or {@code log}, paced to {@code rate}
     * records per second in all while every split runs.
     */
    @SuppressWarnings("unchecked")
    static Source<Long> numbers(String source, Path dir, long n, int keys, long rate) {
        if (source.equals("files")) {
            throw new IllegalArgumentException("the files source holds lines; use lines(...)");
        }
        return paced((Source<Long>) unpaced(source, dir, n, keys), rate);
    }

    /** The job's source for {@code kafka}: the input topic, paced like the others. */
    static Source<Long> kafka(String bootstrap, long rate) {
        return paced(KafkaVerify.source(bootstrap), rate);
    }

    /** The job's source for {@code files}: lines holding record numbers, paced like the others. */
    static Source<String> lines(Path dir, long rate) {
        return paced(Sources.files(dir, LOG_PARTITIONS), rate);
    }

    private static <T> Source<T> paced(Source<T> inner, long rate) {
        return new PacedSource<>(inner, (double) rate / inner.splits(SOURCE_PARALLELISM).size());
    }
}
