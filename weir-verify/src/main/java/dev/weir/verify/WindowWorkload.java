package dev.weir.verify;

import dev.weir.api.DataStream;
import dev.weir.api.OutputTag;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.AggregateFunction;
import dev.weir.api.time.WatermarkStrategy;
import dev.weir.api.window.WindowAssigner;
import dev.weir.verify.Checker.Verdict;
import dev.weir.verify.VerifyJob.Input;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The windowed workload of {@code weir verify --workload windows}: the same input records {@code
 * (key, seq)} get event time {@code seq * 10 ms} minus a jitter of up to 150 ms (out of order
 * within a key), watermarks trail the largest timestamp by 50 ms and are emitted every 5 ms of
 * processing time (so some records are late, and which ones depends on timing: restarts change it),
 * and per-key counts in tumbling 100 ms event-time windows are committed as {@code
 * W,key,start,count}; records too late for their window go to a side output, committed as {@code
 * L,key,seq} through the same sink. Each split is read by a subtask of its own, so watermarks
 * follow splits.
 *
 * <p>The check recomputes each window's records from the input: every window of every key is
 * committed at most once ({@code duplicated} otherwise: a window emitted twice across restarts),
 * every late record at most once, and a window's count plus its late records equal its records in
 * the input ({@code lost} if fewer, {@code wrong} if more).
 */
final class WindowWorkload {
    static final long WINDOW_MS = 100;
    static final long JITTER_MS = 150;
    static final long OUT_OF_ORDERNESS_MS = 50;

    private WindowWorkload() {}

    /** The event time of a record: 10 ms per seq, minus a jitter that depends on key and seq. */
    static long eventTime(int key, long seq) {
        long mixed = (key * 0x9E3779B97F4A7C15L) ^ (seq * 0xC2B2AE3D27D4EB4FL);
        return seq * 10 - Math.floorMod(mixed ^ (mixed >>> 29), JITTER_MS + 1);
    }

    static long windowStart(long time) {
        return Math.floorDiv(time, WINDOW_MS) * WINDOW_MS;
    }

    /** Counts records. */
    static final class Count implements AggregateFunction<Input, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Input value, Long accumulator) {
            return accumulator + 1;
        }

        @Override
        public Long getResult(Long accumulator) {
            return accumulator;
        }
    }

    /** The windowed job on {@code inputs}; the lines to commit. */
    static DataStream<String> apply(DataStream<Input> inputs) {
        OutputTag<Input> late = OutputTag.of("late");
        DataStream<String> windows =
                inputs.assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Input>forBoundedOutOfOrderness(
                                                Duration.ofMillis(OUT_OF_ORDERNESS_MS))
                                        .withTimestampAssigner(
                                                (in, previous) -> eventTime(in.key(), in.seq())))
                        .name("event-time")
                        .keyBy(Input::key)
                        .window(WindowAssigner.tumbling(Duration.ofMillis(WINDOW_MS)))
                        .sideOutputLateData(late)
                        .aggregate(
                                "window-counts",
                                new Count(),
                                Codecs.LONG,
                                (key, context, counts, out) ->
                                        out.collect(
                                                "W,"
                                                        + key
                                                        + ","
                                                        + context.window().start()
                                                        + ","
                                                        + counts.iterator().next()));
        return windows.union(windows.sideOutput(late).map(in -> "L," + in.key() + "," + in.seq()));
    }

    /** Checks the committed lines of a round of {@code n} records (see the class comment). */
    static Verdict check(
            List<String> committedLines,
            long n,
            int keys,
            long seed,
            Collection<String> dangling,
            Collection<String> seenDuringRun) {
        List<String> problems = new ArrayList<>();
        int[] order = VerifyJob.keyOrder(seed, keys);
        Map<String, Long> expected = new HashMap<>();
        long[] seqs = new long[keys];
        for (long i = 1; i <= n; i++) {
            Input in = VerifyJob.input(i, order);
            seqs[in.key()] = in.seq();
            expected.merge(window(in.key(), in.seq()), 1L, Long::sum);
        }
        Map<String, Long> accounted = new HashMap<>();
        Set<String> windowsSeen = new HashSet<>();
        Set<String> lateSeen = new HashSet<>();
        long duplicated = 0;
        long wrong = 0;
        for (String line : committedLines) {
            String[] parts = line.split(",");
            try {
                if (parts.length == 4 && parts[0].equals("W")) {
                    String window = parts[1] + "," + parts[2];
                    if (!windowsSeen.add(window)) {
                        duplicated++;
                        note(problems, "window " + window + " committed twice");
                        continue;
                    }
                    accounted.merge(window, Long.parseLong(parts[3]), Long::sum);
                    continue;
                }
                if (parts.length == 3 && parts[0].equals("L")) {
                    int key = Integer.parseInt(parts[1]);
                    long seq = Long.parseLong(parts[2]);
                    if (key < 0 || key >= keys || seq < 1 || seq > seqs[key]) {
                        wrong++;
                        note(problems, "late record '" + line + "' matches no input record");
                    } else if (!lateSeen.add(line)) {
                        duplicated++;
                        note(problems, "late record " + line + " committed twice");
                    } else {
                        accounted.merge(window(key, seq), 1L, Long::sum);
                    }
                    continue;
                }
            } catch (NumberFormatException e) {
                // falls through to the foreign-line finding
            }
            wrong++;
            note(problems, "committed line '" + line + "' is neither a window nor a late record");
        }
        long lost = 0;
        for (Map.Entry<String, Long> window : expected.entrySet()) {
            long found = accounted.getOrDefault(window.getKey(), 0L);
            if (found < window.getValue()) {
                lost += window.getValue() - found;
                note(
                        problems,
                        "window "
                                + window.getKey()
                                + " accounts for "
                                + found
                                + " of its "
                                + window.getValue()
                                + " records (count plus late)");
            } else if (found > window.getValue()) {
                wrong += found - window.getValue();
                note(
                        problems,
                        "window "
                                + window.getKey()
                                + " accounts for "
                                + found
                                + " records; the input has "
                                + window.getValue());
            }
        }
        for (String window : accounted.keySet()) {
            if (!expected.containsKey(window)) {
                wrong++;
                note(problems, "window " + window + " has no input record");
            }
        }
        for (String leftover : dangling) {
            note(problems, "left uncommitted: " + leftover);
        }
        Set<String> finalLines = new HashSet<>(committedLines);
        long vanished = 0;
        for (String line : seenDuringRun) {
            if (!finalLines.contains(line)) {
                vanished++;
                note(problems, "a reader saw '" + line + "' committed, and it later disappeared");
            }
        }
        return new Verdict(n, lost, duplicated, 0, wrong, dangling.size(), vanished, problems);
    }

    private static String window(int key, long seq) {
        return key + "," + windowStart(eventTime(key, seq));
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < 20) {
            problems.add(problem);
        }
    }
}
