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
import java.util.TreeMap;

/**
 * The windowed workload of {@code weir verify --workload windows}: two kinds of event-time windows
 * over the same input records {@code (key, seq)}, committed through the same sink.
 *
 * <p><b>Tumbling windows.</b> Records get event time {@code seq * 10 ms} minus a jitter of up to
 * 150 ms (out of order within a key), watermarks trail the largest timestamp by 50 ms and are
 * emitted every 5 ms of processing time (so some records are late, and which ones depends on
 * timing: restarts change it), and per-key counts in tumbling 100 ms event-time windows are
 * committed as {@code W,key,start,count}; records too late for their window go to a side output,
 * committed as {@code L,key,seq}.
 *
 * <p><b>Session windows.</b> The same records get a second event time ({@link #sessionTime}): each
 * key's records come in bursts (the burst lengths cycle through {@link #BURSTS}, the same seqs for
 * every key), 10 ms per seq within a burst and 300 ms more between bursts, minus a jitter of up to
 * 20 ms (out of order within a burst). Per-key counts in event-time session windows with a 100 ms
 * gap are committed as {@code S,key,start,end,count}. Within a burst no two sorted timestamps are
 * more than 30 ms apart and bursts are at least 290 ms apart, so each burst is exactly one session,
 * whatever the arrival order. No record can be late for its session either, and no session can fire
 * before its last record: the input holds each key's records in one split in record-number order
 * and each split has a source subtask of its own, so when a record of seq s arrives every earlier
 * record of its subtask has a seq of at most s, hence a session time of at most {@code b(s) = s *
 * 10 + burst(s) * 300}, and the watermark (the least of the subtasks', each 50 ms behind its
 * largest time) is at most {@code b(s) - 50}; the record's time is at least {@code b(s) - 20}, so
 * its own window ends at least 80 ms after {@code b(s)}, and its session so far (the key's previous
 * record in the burst is at least {@code b(s) - 30}) at least 70 ms after. The expected sessions
 * follow from the seed alone, restarts or not. A record late for its session anyway (the argument
 * broken) goes to a side output committed as {@code SL,key,seq}.
 *
 * <p>Each split is read by a subtask of its own, so watermarks follow splits (sources {@code log}
 * and {@code sequence} only; see {@link Verifier.Options}).
 *
 * <p>The check recomputes each tumbling window's records from the input: every window of every key
 * is committed at most once ({@code duplicated} otherwise: a window emitted twice across restarts),
 * every late record at most once, and a window's count plus its late records equal its records in
 * the input ({@code lost} if fewer, {@code wrong} if more). It recomputes each key's sessions (one
 * per burst) too: each is committed exactly once with its start, end and count. A session line
 * committed twice is {@code duplicated}; an expected session missing, or whose committed pieces
 * hold fewer records than it, is {@code lost} (by the records missing); anything else is {@code
 * wrong}: a session split into pieces that should have merged, wrong bounds or count, a session
 * that spans bursts or matches none, a record late for its session.
 */
final class WindowWorkload {
    static final long WINDOW_MS = 100;
    static final long JITTER_MS = 150;
    static final long OUT_OF_ORDERNESS_MS = 50;

    /** The session gap: a key's session closes after this long without a record. */
    static final long SESSION_GAP_MS = 100;

    /** Event time between a key's consecutive records within a burst. */
    static final long SESSION_STEP_MS = 10;

    /** Event time added between a key's bursts, beyond the step. */
    static final long SESSION_PAUSE_MS = 300;

    /** The most a record's session time is moved back, out of order within its burst. */
    static final long SESSION_JITTER_MS = 20;

    /** The lengths of the bursts (sessions), in records; they repeat, the same for every key. */
    static final int[] BURSTS = {12, 5, 9, 1, 16, 7, 11, 3, 14};

    /** For each position in one cycle of {@link #BURSTS}, the index of its burst. */
    private static final int[] BURST_AT = burstIndexes();

    private WindowWorkload() {}

    /** The event time of a record: 10 ms per seq, minus a jitter that depends on key and seq. */
    static long eventTime(int key, long seq) {
        long mixed = (key * 0x9E3779B97F4A7C15L) ^ (seq * 0xC2B2AE3D27D4EB4FL);
        return seq * 10 - Math.floorMod(mixed ^ (mixed >>> 29), JITTER_MS + 1);
    }

    private static int[] burstIndexes() {
        int cycle = 0;
        for (int length : BURSTS) {
            cycle += length;
        }
        int[] at = new int[cycle];
        int position = 0;
        for (int i = 0; i < BURSTS.length; i++) {
            for (int j = 0; j < BURSTS[i]; j++) {
                at[position++] = i;
            }
        }
        return at;
    }

    /**
     * The burst (session) of a key's {@code seq}-th record, counted from 0; the same for all keys.
     */
    static long burst(long seq) {
        long cycles = (seq - 1) / BURST_AT.length;
        return cycles * BURSTS.length + BURST_AT[(int) ((seq - 1) % BURST_AT.length)];
    }

    /**
     * The session workload's event time of a record: 10 ms per seq plus 300 ms per burst before its
     * own, minus a jitter of up to 20 ms that depends on key and seq.
     */
    static long sessionTime(int key, long seq) {
        long mixed = (key * 0xC6A4A7935BD1E995L) ^ (seq * 0x9E3779B97F4A7C15L) ^ 0x5DEECE66DL;
        long jitter = Math.floorMod(mixed ^ (mixed >>> 31), SESSION_JITTER_MS + 1);
        return seq * SESSION_STEP_MS + burst(seq) * SESSION_PAUSE_MS - jitter;
    }

    /** One session window of a key: {@code [start, end)} and its record count. */
    record Session(int key, long start, long end, long count) {
        /** As committed: {@code S,key,start,end,count}. */
        String line() {
            return "S," + key + "," + start + "," + end + "," + count;
        }
    }

    /**
     * The sessions of a round of {@code n} records: one per burst of each key, from the earliest of
     * its records' session times to the latest plus the gap; per key, by start.
     */
    static Map<Integer, TreeMap<Long, Session>> expectedSessions(long n, int keys, long seed) {
        int[] order = VerifyJob.keyOrder(seed, keys);
        long[] seqs = new long[keys];
        for (int i = 0; i < keys; i++) {
            seqs[order[i]] = n / keys + (i < n % keys ? 1 : 0);
        }
        Map<Integer, TreeMap<Long, Session>> sessions = new HashMap<>();
        for (int key = 0; key < keys; key++) {
            TreeMap<Long, Session> ofKey = new TreeMap<>();
            long seq = 1;
            while (seq <= seqs[key]) {
                long burst = burst(seq);
                long first = Long.MAX_VALUE;
                long last = Long.MIN_VALUE;
                long count = 0;
                for (; seq <= seqs[key] && burst(seq) == burst; seq++) {
                    long time = sessionTime(key, seq);
                    first = Math.min(first, time);
                    last = Math.max(last, time);
                    count++;
                }
                ofKey.put(first, new Session(key, first, last + SESSION_GAP_MS, count));
            }
            sessions.put(key, ofKey);
        }
        return sessions;
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

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
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
        OutputTag<Input> lateForSession = OutputTag.of("late-for-session");
        DataStream<String> sessions =
                inputs.assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Input>forBoundedOutOfOrderness(
                                                Duration.ofMillis(OUT_OF_ORDERNESS_MS))
                                        .withTimestampAssigner(
                                                (in, previous) -> sessionTime(in.key(), in.seq())))
                        .name("session-time")
                        .keyBy(Input::key)
                        .window(WindowAssigner.session(Duration.ofMillis(SESSION_GAP_MS)))
                        .sideOutputLateData(lateForSession)
                        .aggregate(
                                "session-counts",
                                new Count(),
                                Codecs.LONG,
                                (key, context, counts, out) ->
                                        out.collect(
                                                new Session(
                                                                key,
                                                                context.window().start(),
                                                                context.window().end(),
                                                                counts.iterator().next())
                                                        .line()));
        return windows.union(
                windows.sideOutput(late).map(in -> "L," + in.key() + "," + in.seq()),
                sessions,
                sessions.sideOutput(lateForSession).map(in -> "SL," + in.key() + "," + in.seq()));
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
        Map<Integer, TreeMap<Long, Session>> sessions = expectedSessions(n, keys, seed);
        Set<Session> sessionsSeen = new HashSet<>();
        Map<Session, List<Session>> pieces = new HashMap<>();
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
                if (parts.length == 5 && parts[0].equals("S")) {
                    Session session =
                            new Session(
                                    Integer.parseInt(parts[1]),
                                    Long.parseLong(parts[2]),
                                    Long.parseLong(parts[3]),
                                    Long.parseLong(parts[4]));
                    if (!sessionsSeen.add(session)) {
                        duplicated++;
                        note(problems, "session " + line + " committed twice");
                        continue;
                    }
                    Session burst = burstOf(session, sessions);
                    if (burst == null) {
                        wrong++;
                        note(
                                problems,
                                "session '"
                                        + line
                                        + "' lies within no session of the input (wrong bounds,"
                                        + " or it spans bursts)");
                    } else {
                        pieces.computeIfAbsent(burst, b -> new ArrayList<>()).add(session);
                    }
                    continue;
                }
                if (parts.length == 3 && parts[0].equals("SL")) {
                    wrong++;
                    note(
                            problems,
                            "record "
                                    + parts[1]
                                    + ","
                                    + parts[2]
                                    + " was late for its session; the input lets none be");
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
            note(
                    problems,
                    "committed line '"
                            + line
                            + "' is neither a window, a session nor a late record");
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
        for (TreeMap<Long, Session> ofKey : sessions.values()) {
            for (Session session : ofKey.values()) {
                List<Session> committed = pieces.getOrDefault(session, List.of());
                if (committed.size() == 1 && committed.get(0).equals(session)) {
                    continue;
                }
                long found = committed.stream().mapToLong(Session::count).sum();
                if (found < session.count()) {
                    lost += session.count() - found;
                    note(
                            problems,
                            committed.isEmpty()
                                    ? "session " + session.line() + " is missing"
                                    : "session "
                                            + session.line()
                                            + " committed short, as "
                                            + lines(committed));
                } else {
                    wrong++;
                    note(
                            problems,
                            "session "
                                    + session.line()
                                    + " committed as "
                                    + lines(committed)
                                    + (committed.size() > 1 ? ", which should have merged" : ""));
                }
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
        long sessionCount = sessions.values().stream().mapToLong(TreeMap::size).sum();
        // No order to check: a key's windows and sessions may be committed in any order, so
        // reordered stays 0 (and the summary line leaves it out).
        return new Verdict(
                n,
                lost,
                duplicated,
                0,
                wrong,
                dangling.size(),
                vanished,
                problems,
                expected.size(),
                sessionCount);
    }

    /** The expected session whose bounds hold {@code session}'s; null if none does. */
    private static Session burstOf(Session session, Map<Integer, TreeMap<Long, Session>> sessions) {
        TreeMap<Long, Session> ofKey = sessions.get(session.key());
        if (ofKey == null || session.end() <= session.start()) {
            return null;
        }
        Map.Entry<Long, Session> floor = ofKey.floorEntry(session.start());
        return floor != null && session.end() <= floor.getValue().end() ? floor.getValue() : null;
    }

    private static String lines(List<Session> sessions) {
        return String.join(" ", sessions.stream().map(Session::line).toList());
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
