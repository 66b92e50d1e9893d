package dev.weir.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.verify.Checker.Verdict;
import dev.weir.verify.VerifyJob.Input;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The windowed workload's checker finds lost, duplicated and wrong windows and sessions. */
class WindowWorkloadTest {
    static final long N = 2_000;
    static final int KEYS = 10;
    static final long SEED = 3;

    /** The committed lines of a correct run whose records with seq divisible by 9 were late. */
    static List<String> correctOutput() {
        int[] order = VerifyJob.keyOrder(SEED, KEYS);
        Map<String, Long> counts = new TreeMap<>();
        List<String> lines = new ArrayList<>();
        for (long i = 1; i <= N; i++) {
            Input in = VerifyJob.input(i, order);
            if (in.seq() % 9 == 0) {
                lines.add("L," + in.key() + "," + in.seq());
            } else {
                long start =
                        WindowWorkload.windowStart(WindowWorkload.eventTime(in.key(), in.seq()));
                counts.merge(in.key() + "," + start, 1L, Long::sum);
            }
        }
        counts.forEach((window, count) -> lines.add("W," + window + "," + count));
        for (List<Long> session : sessionTimes()) {
            lines.add(sessionLine(session));
        }
        return lines;
    }

    /**
     * The session times of each session of the input, as session windows make them without knowing
     * the bursts: each key's times sorted, a new session wherever one is more than the gap after
     * the previous one. Each list starts with the key.
     */
    static List<List<Long>> sessionTimes() {
        int[] order = VerifyJob.keyOrder(SEED, KEYS);
        Map<Integer, List<Long>> times = new TreeMap<>();
        for (long i = 1; i <= N; i++) {
            Input in = VerifyJob.input(i, order);
            times.computeIfAbsent(in.key(), k -> new ArrayList<>())
                    .add(WindowWorkload.sessionTime(in.key(), in.seq()));
        }
        List<List<Long>> sessions = new ArrayList<>();
        times.forEach(
                (key, ofKey) -> {
                    Collections.sort(ofKey);
                    List<Long> session = null;
                    for (long time : ofKey) {
                        if (session == null
                                || time
                                        > session.get(session.size() - 1)
                                                + WindowWorkload.SESSION_GAP_MS) {
                            session = new ArrayList<>(List.of((long) key));
                            sessions.add(session);
                        }
                        session.add(time);
                    }
                });
        return sessions;
    }

    /** {@code S,key,start,end,count} of a session's times (after its key). */
    static String sessionLine(List<Long> session) {
        List<Long> times = session.subList(1, session.size());
        return "S,"
                + session.get(0)
                + ","
                + times.get(0)
                + ","
                + (times.get(times.size() - 1) + WindowWorkload.SESSION_GAP_MS)
                + ","
                + times.size();
    }

    /** The first session of at least {@code records} records. */
    static List<Long> aSessionOf(int records) {
        return sessionTimes().stream()
                .filter(s -> s.size() - 1 >= records)
                .findFirst()
                .orElseThrow();
    }

    static Verdict check(List<String> lines) {
        return WindowWorkload.check(lines, N, KEYS, SEED, List.of(), List.of());
    }

    @Test
    void aCorrectRunPasses() {
        Verdict verdict = check(correctOutput());
        assertThat(verdict.problems()).isEmpty();
        assertThat(verdict.ok()).isTrue();
    }

    @Test
    void theCheckCountsTheWindowsAndSessionsOfTheInput() {
        // Every key and tumbling window that holds an input record, late or not.
        int[] order = VerifyJob.keyOrder(SEED, KEYS);
        java.util.Set<String> windows = new java.util.HashSet<>();
        for (long i = 1; i <= N; i++) {
            Input in = VerifyJob.input(i, order);
            windows.add(
                    in.key()
                            + ","
                            + WindowWorkload.windowStart(
                                    WindowWorkload.eventTime(in.key(), in.seq())));
        }
        Verdict verdict = check(correctOutput());
        assertThat(verdict.windows()).isEqualTo(windows.size()).isGreaterThan(KEYS);
        assertThat(verdict.sessions()).isEqualTo(sessionTimes().size()).isGreaterThan(KEYS);
        // Missing output changes what is found, not what is checked; two rounds add up.
        assertThat(check(List.of()).windows()).isEqualTo(windows.size());
        assertThat(verdict.plus(verdict).sessions()).isEqualTo(2L * sessionTimes().size());
        assertThat(verdict.withFailure("boom").windows()).isEqualTo(windows.size());
    }

    static Verifier.Report report(String workload, Verdict findings) {
        return new Verifier.Report(
                "log",
                "file" + (workload.equals("windows") ? " workload=windows" : ""),
                3,
                2,
                1,
                SplitStates.Counts.NONE,
                findings,
                6,
                6,
                120,
                180,
                SEED,
                0,
                workload);
    }

    @Test
    void theWindowsSummaryLineCountsWindowsAndSessionsAndLeavesOutReordered() {
        Verdict verdict = check(correctOutput());
        List<String> extra = new ArrayList<>(correctOutput());
        extra.add("SL,3,17");
        assertThat(report("windows", verdict).line())
                .isEqualTo(
                        "verify: source=log sink=file workload=windows kills=3 fault_points=2"
                                + " power_cuts=1 records=2000 windows="
                                + verdict.windows()
                                + " sessions="
                                + verdict.sessions()
                                + " lost=0 duplicated=0 wrong=0 dangling=0"
                                + " seeded_bugs_caught=6/6 recovery_ms_p50=120"
                                + " recovery_ms_p99=180 seed=3");
        assertThat(report("windows", check(extra)).line())
                .contains(" wrong=1 ")
                .doesNotContain("reordered");
    }

    @Test
    void theCountSummaryLineIsUnchanged() {
        Verdict verdict = new Verdict(3_000, 1, 2, 3, 4, 5, 6, List.of());
        assertThat(report("count", verdict).line())
                .isEqualTo(
                        "verify: source=log sink=file kills=3 fault_points=2 power_cuts=1"
                                + " records=3000 lost=1 duplicated=2 reordered=3 dangling=5"
                                + " seeded_bugs_caught=6/6 recovery_ms_p50=120"
                                + " recovery_ms_p99=180 seed=3");
    }

    @Test
    void aMissingWindowIsLostAndARepeatedWindowIsDuplicated() {
        List<String> lines = correctOutput();
        String window = lines.stream().filter(l -> l.startsWith("W,")).findFirst().orElseThrow();
        long count = Long.parseLong(window.substring(window.lastIndexOf(',') + 1));

        List<String> missing = new ArrayList<>(lines);
        missing.remove(window);
        assertThat(check(missing).lost()).isEqualTo(count);

        List<String> twice = new ArrayList<>(lines);
        twice.add(window);
        assertThat(check(twice).duplicated()).isEqualTo(1);
        assertThat(check(twice).problems()).anyMatch(p -> p.contains("committed twice"));
    }

    @Test
    void aLateRecordAlsoCountedInItsWindowIsWrong() {
        List<String> lines = correctOutput();
        String late = lines.stream().filter(l -> l.startsWith("L,")).findFirst().orElseThrow();
        List<String> extra = new ArrayList<>(lines);
        extra.add("L,0,999999");
        assertThat(check(extra).wrong()).isEqualTo(1);
        List<String> lateTwice = new ArrayList<>(lines);
        lateTwice.add(late);
        assertThat(check(lateTwice).duplicated()).isEqualTo(1);
        List<String> withoutLate = new ArrayList<>(lines);
        withoutLate.remove(late);
        assertThat(check(withoutLate).lost()).isEqualTo(1);
    }

    @Test
    void theSessionsAreTheBurstsAndEveryBurstLengthOccurs() {
        List<List<Long>> sessions = sessionTimes();
        long expected =
                WindowWorkload.expectedSessions(N, KEYS, SEED).values().stream()
                        .mapToLong(Map::size)
                        .sum();
        assertThat(sessions).hasSize((int) expected);
        assertThat(sessions.stream().map(s -> s.size() - 1).distinct())
                .containsAll(java.util.Arrays.stream(WindowWorkload.BURSTS).boxed().toList());
    }

    /**
     * Replays the input in record order through one subtask, the worst case (a split holding every
     * key), with the watermark as close behind as the strategy lets it be: no record is late for
     * its window, and no session is due before its key's last record in it has come.
     */
    @Test
    void inRecordOrderNoRecordIsLateForItsSession() {
        int[] order = VerifyJob.keyOrder(SEED, KEYS);
        long maxSeen = Long.MIN_VALUE;
        Map<Integer, Long> sessionEnd = new TreeMap<>();
        Map<Integer, Long> sessionBurst = new TreeMap<>();
        for (long i = 1; i <= N; i++) {
            Input in = VerifyJob.input(i, order);
            long watermark =
                    maxSeen == Long.MIN_VALUE
                            ? Long.MIN_VALUE
                            : maxSeen - WindowWorkload.OUT_OF_ORDERNESS_MS;
            long time = WindowWorkload.sessionTime(in.key(), in.seq());
            long burst = WindowWorkload.burst(in.seq());
            assertThat(time + WindowWorkload.SESSION_GAP_MS - 1)
                    .as("record %s: its window's last millisecond", in)
                    .isGreaterThan(watermark);
            if (sessionBurst.getOrDefault(in.key(), -1L) == burst) {
                assertThat(sessionEnd.get(in.key()) - 1)
                        .as("record %s: its session so far fires at", in)
                        .isGreaterThan(watermark);
                sessionEnd.merge(in.key(), time + WindowWorkload.SESSION_GAP_MS, Math::max);
            } else {
                sessionBurst.put(in.key(), burst);
                sessionEnd.put(in.key(), time + WindowWorkload.SESSION_GAP_MS);
            }
            maxSeen = Math.max(maxSeen, time);
        }
    }

    @Test
    void aSessionCommittedTwiceIsDuplicatedAndAMissingOneIsLost() {
        List<String> lines = correctOutput();
        List<Long> session = aSessionOf(5);
        String line = sessionLine(session);
        assertThat(lines).contains(line);

        List<String> twice = new ArrayList<>(lines);
        twice.add(line);
        Verdict duplicated = check(twice);
        assertThat(duplicated.duplicated()).isEqualTo(1);
        assertThat(duplicated.lost()).isZero();
        assertThat(duplicated.wrong()).isZero();
        assertThat(duplicated.problems()).anyMatch(p -> p.contains("committed twice"));

        List<String> missing = new ArrayList<>(lines);
        missing.remove(line);
        Verdict lost = check(missing);
        assertThat(lost.lost()).isEqualTo(session.size() - 1);
        assertThat(lost.duplicated()).isZero();
        assertThat(lost.wrong()).isZero();
        assertThat(lost.problems()).anyMatch(p -> p.contains("is missing"));
    }

    @Test
    void aShortSessionIsLost() {
        List<String> lines = correctOutput();
        List<Long> session = aSessionOf(5);
        List<String> shortened = new ArrayList<>(lines);
        shortened.remove(sessionLine(session));
        // its last record missing: the session ends earlier and holds one record fewer
        shortened.add(sessionLine(session.subList(0, session.size() - 1)));
        Verdict verdict = check(shortened);
        assertThat(verdict.lost()).isEqualTo(1);
        assertThat(verdict.wrong()).isZero();
        assertThat(verdict.problems()).anyMatch(p -> p.contains("committed short"));
    }

    @Test
    void aSessionSplitInTwoThatShouldHaveMergedIsWrong() {
        List<String> lines = correctOutput();
        List<Long> session = aSessionOf(6);
        int half = session.size() / 2;
        List<Long> first = session.subList(0, half);
        List<Long> second = new ArrayList<>(List.of(session.get(0)));
        second.addAll(session.subList(half, session.size()));
        List<String> split = new ArrayList<>(lines);
        split.remove(sessionLine(session));
        split.add(sessionLine(first));
        split.add(sessionLine(second));
        Verdict verdict = check(split);
        assertThat(verdict.wrong()).isEqualTo(1);
        assertThat(verdict.lost()).isZero();
        assertThat(verdict.duplicated()).isZero();
        assertThat(verdict.problems()).anyMatch(p -> p.contains("should have merged"));

        // the same split, one piece of it committed again
        split.add(sessionLine(second));
        assertThat(check(split).duplicated()).isEqualTo(1);
    }

    @Test
    void twoSessionsMergedIntoOneOrWithWrongBoundsAreWrong() {
        List<String> lines = correctOutput();
        List<List<Long>> sessions = sessionTimes();
        List<Long> a = sessions.get(0);
        List<Long> b = sessions.get(1);
        assertThat(b.get(0)).as("the same key").isEqualTo(a.get(0));
        List<Long> both = new ArrayList<>(a);
        both.addAll(b.subList(1, b.size()));
        List<String> merged = new ArrayList<>(lines);
        merged.remove(sessionLine(a));
        merged.remove(sessionLine(b));
        merged.add(sessionLine(both));
        Verdict verdict = check(merged);
        assertThat(verdict.wrong()).isEqualTo(1);
        assertThat(verdict.lost()).isEqualTo(a.size() - 1 + b.size() - 1);
        assertThat(verdict.problems()).anyMatch(p -> p.contains("lies within no session"));

        String line = sessionLine(a);
        String[] parts = line.split(",");
        List<String> longer = new ArrayList<>(lines);
        longer.set(
                longer.indexOf(line),
                String.join(",", parts[0], parts[1], parts[2], parts[3], "" + (a.size() + 1)));
        assertThat(check(longer).wrong()).isEqualTo(1);
        assertThat(check(longer).lost()).isZero();
    }

    @Test
    void aRecordLateForItsSessionIsWrong() {
        List<String> lines = new ArrayList<>(correctOutput());
        lines.add("SL,3,17");
        assertThat(check(lines).wrong()).isEqualTo(1);
        assertThat(check(lines).problems()).anyMatch(p -> p.contains("late for its session"));
    }

    @Test
    void sourcesThatMixSplitsInASubtaskAreRefused() {
        for (String source : List.of("files", "kafka")) {
            assertThatThrownBy(
                            () ->
                                    new Verifier.Options(
                                            source,
                                            "file",
                                            4,
                                            SEED,
                                            N,
                                            KEYS,
                                            1_000,
                                            Path.of("unused"),
                                            null,
                                            List.of(),
                                            null,
                                            "windows"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("--source log or sequence");
        }
    }
}
