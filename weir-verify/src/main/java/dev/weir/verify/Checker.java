package dev.weir.verify;

import dev.weir.verify.VerifyJob.Update;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks committed output only, against the input recomputed from the seed: every {@code (key,
 * seq)} once (nothing lost, nothing duplicated), each key's updates in seq order, each update's
 * count and sum equal to those of the key's first seq records, nothing left uncommitted, and
 * nothing a reader saw during the run missing at the end.
 */
public final class Checker {
    private Checker() {}

    /**
     * What the checker found in one round.
     *
     * @param records input records of the round
     * @param lost expected updates missing from the committed output
     * @param duplicated committed updates beyond the first of each
     * @param reordered updates that came after a later update of the same key
     * @param wrong updates whose count or sum is not the recomputed one, or that no input explains
     * @param dangling uncommitted leftovers: pending files, staged or prepared transactions
     * @param vanished lines a reader saw committed during the run that are gone at the end
     * @param problems the first few findings, readable
     * @param windows tumbling windows checked (of the windowed workload; 0 for the count workload):
     *     one per key and window that holds an input record
     * @param sessions session windows checked (of the windowed workload; 0 for the count workload):
     *     one per key and burst
     */
    public record Verdict(
            long records,
            long lost,
            long duplicated,
            long reordered,
            long wrong,
            long dangling,
            long vanished,
            List<String> problems,
            long windows,
            long sessions) {
        /** Nothing checked, nothing found: where sums of verdicts start. */
        public static final Verdict NONE = new Verdict(0, 0, 0, 0, 0, 0, 0, List.of());

        /** A verdict of the count workload, which checks no windows. */
        public Verdict(
                long records,
                long lost,
                long duplicated,
                long reordered,
                long wrong,
                long dangling,
                long vanished,
                List<String> problems) {
            this(records, lost, duplicated, reordered, wrong, dangling, vanished, problems, 0, 0);
        }

        /** True if nothing was found. */
        public boolean ok() {
            return lost == 0
                    && duplicated == 0
                    && reordered == 0
                    && wrong == 0
                    && dangling == 0
                    && vanished == 0;
        }

        /** This verdict and {@code other} together (two rounds, say). */
        public Verdict plus(Verdict other) {
            List<String> all = new ArrayList<>(problems);
            all.addAll(other.problems);
            return new Verdict(
                    records + other.records,
                    lost + other.lost,
                    duplicated + other.duplicated,
                    reordered + other.reordered,
                    wrong + other.wrong,
                    dangling + other.dangling,
                    vanished + other.vanished,
                    all,
                    windows + other.windows,
                    sessions + other.sessions);
        }

        /** This verdict with {@code failure} as one more finding, first among the problems. */
        public Verdict withFailure(String failure) {
            List<String> all = new ArrayList<>();
            all.add(failure);
            all.addAll(problems);
            return new Verdict(
                    records,
                    lost,
                    duplicated,
                    reordered,
                    wrong + 1,
                    dangling,
                    vanished,
                    all,
                    windows,
                    sessions);
        }
    }

    /**
     * Checks {@code committedLines} (in commit order per key) of the job over {@code n} records and
     * {@code keys} keys with {@code seed}.
     */
    public static Verdict check(
            List<String> committedLines,
            long n,
            int keys,
            long seed,
            Collection<String> dangling,
            Collection<String> seenDuringRun) {
        List<String> problems = new ArrayList<>();
        int[] order = VerifyJob.keyOrder(seed, keys);
        long[] expectedPerKey = new long[keys];
        for (long i = 1; i <= n; i++) {
            expectedPerKey[VerifyJob.input(i, order).key()]++;
        }
        Map<Long, Integer> seen = new HashMap<>();
        long[] lastSeq = new long[keys];
        long duplicated = 0;
        long reordered = 0;
        long wrong = 0;
        for (String line : committedLines) {
            Update u = Update.parse(line);
            if (u == null
                    || u.key() < 0
                    || u.key() >= keys
                    || u.seq() < 1
                    || u.seq() > expectedPerKey[u.key()]) {
                wrong++;
                note(problems, "committed line '" + line + "' matches no input record");
                continue;
            }
            if (u.count() != u.seq() || u.sum() != u.seq() * (u.seq() + 1) / 2) {
                wrong++;
                note(
                        problems,
                        "key "
                                + u.key()
                                + " seq "
                                + u.seq()
                                + " has count "
                                + u.count()
                                + " sum "
                                + u.sum()
                                + "; recomputed from the input: count "
                                + u.seq()
                                + " sum "
                                + u.seq() * (u.seq() + 1) / 2);
            }
            long id = (long) u.key() * (n + 1) + u.seq();
            if (seen.merge(id, 1, Integer::sum) > 1) {
                duplicated++;
                note(problems, "key " + u.key() + " seq " + u.seq() + " committed twice");
            }
            if (u.seq() <= lastSeq[u.key()]) {
                reordered++;
                note(
                        problems,
                        "key "
                                + u.key()
                                + " seq "
                                + u.seq()
                                + " committed after seq "
                                + lastSeq[u.key()]);
            }
            lastSeq[u.key()] = Math.max(lastSeq[u.key()], u.seq());
        }
        long lost = 0;
        for (int key = 0; key < keys; key++) {
            for (long seq = 1; seq <= expectedPerKey[key]; seq++) {
                if (!seen.containsKey((long) key * (n + 1) + seq)) {
                    lost++;
                    note(problems, "key " + key + " seq " + seq + " is missing");
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
        return new Verdict(
                n, lost, duplicated, reordered, wrong, dangling.size(), vanished, problems);
    }

    private static void note(List<String> problems, String problem) {
        if (problems.size() < 20) {
            problems.add(problem);
        }
    }
}
