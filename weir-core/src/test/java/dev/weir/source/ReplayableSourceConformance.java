package dev.weir.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobHandle;
import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.sink.CollectSink;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import dev.weir.internal.checkpoint.SplitState;
import dev.weir.internal.runtime.SourceDriverProbe;
import dev.weir.testing.ChildJvm;
import dev.weir.testing.SourceCrashChild;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every replayable source passes: positions start at 0, reading yields every record
 * once in order per split, seeking to a reported position resumes exactly there, input ends, and a
 * job restarted from a checkpoint neither loses nor repeats a record in its state.
 */
public abstract class ReplayableSourceConformance {
    @TempDir protected Path temp;

    /** Records the rescale test's job has counted so far. */
    static final java.util.concurrent.atomic.AtomicLong SEEN =
            new java.util.concurrent.atomic.AtomicLong();

    /** A source whose splits together hold exactly {@code records}, in order within a split. */
    protected abstract Source<String> createSource(List<String> records, int splits)
            throws Exception;

    /**
     * A source with exactly {@code splits.size()} splits at any parallelism, split {@code k} (in
     * the order {@link Source#splits} lists them) holding {@code splits.get(k)} in order.
     */
    protected abstract Source<String> createSourceWithSplits(List<List<String>> splits)
            throws Exception;

    /** One short split and one long one: the short one ends while the long one still runs. */
    static List<List<String>> shortAndLong(int shortRecords, int longRecords) {
        List<String> shortSplit = new ArrayList<>();
        for (int i = 0; i < shortRecords; i++) {
            shortSplit.add("short-" + i);
        }
        List<String> longSplit = new ArrayList<>();
        for (int i = 0; i < longRecords; i++) {
            longSplit.add("long-" + i);
        }
        return List.of(shortSplit, longSplit);
    }

    static List<String> records(int n) {
        List<String> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add("record-" + i);
        }
        return records;
    }

    /** Subtask 0 of 1 on the system clock: for tests that open readers or drive a source. */
    public static final SourceContext CONTEXT =
            new SourceContext() {
                @Override
                public int subtaskIndex() {
                    return 0;
                }

                @Override
                public int parallelism() {
                    return 1;
                }

                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }
            };

    static List<String> readAll(SourceReader<String> reader, int batch) throws Exception {
        List<String> out = new ArrayList<>();
        Collector<String> collector = out::add;
        for (int spins = 0; spins < 1_000_000; spins++) {
            if (reader.poll(collector, batch) == ReadStatus.END_OF_INPUT) {
                return out;
            }
        }
        throw new AssertionError("no end of input");
    }

    List<String> readSplits(Source<String> source, int splits) throws Exception {
        List<String> all = new ArrayList<>();
        for (String split : source.splits(splits)) {
            try (SourceReader<String> reader = source.openReader(split, CONTEXT)) {
                assertThat(reader.position()).isZero();
                all.addAll(readAll(reader, 7));
            }
        }
        return all;
    }

    @Test
    void declaresItselfReplayable() throws Exception {
        assertThat(createSource(records(3), 1).isReplayable()).isTrue();
    }

    @Test
    void readsEveryRecordOnceAndThenEnds() throws Exception {
        List<String> expected = records(1000);
        List<String> read = readSplits(createSource(expected, 2), 2);
        assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void seekingToAReportedPositionResumesExactlyThere() throws Exception {
        Source<String> source = createSource(records(500), 1);
        String split = source.splits(1).get(0);
        List<String> head = new ArrayList<>();
        long position;
        byte[] state;
        try (SourceReader<String> reader = source.openReader(split, CONTEXT)) {
            while (head.size() < 123) {
                reader.poll(head::add, 123 - head.size());
            }
            position = reader.position();
            state = reader.snapshotState();
        }
        try (SourceReader<String> reader = source.openReader(split, CONTEXT)) {
            if (state != null) {
                reader.restoreState(state);
            }
            reader.seek(position);
            List<String> tail = readAll(reader, 50);
            List<String> both = new ArrayList<>(head);
            both.addAll(tail);
            try (SourceReader<String> uninterrupted = source.openReader(split, CONTEXT)) {
                assertThat(both).containsExactlyElementsOf(readAll(uninterrupted, 1000));
            }
            assertThat(both).containsExactlyInAnyOrderElementsOf(records(500));
        }
    }

    @Test
    void aSplitThatEndedIsRestoredAsEndedAndReadsNothingMore() throws Exception {
        List<List<String>> data = shortAndLong(5, 300);
        Source<String> source = createSourceWithSplits(data);
        List<String> splits = source.splits(1);
        Map<String, SplitState> barrier;
        List<Object> before;
        try (SourceDriverProbe probe = new SourceDriverProbe(source, splits, CONTEXT, Map.of())) {
            // Round-robin polls: the short split ends while the long one has records left.
            while (!endedAny(probe.snapshot())) {
                probe.poll(3);
            }
            barrier = probe.snapshot();
            before = List.copyOf(probe.emitted());
        }
        assertThat(barrier.get(splits.get(0)).ended()).as("the short split ended").isTrue();
        assertThat(barrier.get(splits.get(1)).ended()).as("the long split runs").isFalse();

        List<Object> after;
        try (SourceDriverProbe restored = new SourceDriverProbe(source, splits, CONTEXT, barrier)) {
            for (int spins = 0; !restored.ended() && spins < 100_000; spins++) {
                restored.poll(7);
            }
            assertThat(restored.ended()).isTrue();
            after = restored.emitted();
            assertThat(restored.snapshot().values()).allMatch(SplitState::ended);
        }
        List<Object> all = new ArrayList<>(before);
        all.addAll(after);
        List<String> expected = new ArrayList<>(data.get(0));
        expected.addAll(data.get(1));
        assertThat(all).containsExactlyInAnyOrderElementsOf(expected);

        // A restore from a snapshot taken after everything ended (a final checkpoint) reads
        // nothing.
        try (SourceDriverProbe done =
                new SourceDriverProbe(source, splits, CONTEXT, finalOf(source, splits))) {
            assertThat(done.ended()).isTrue();
            assertThat(done.poll(100)).isEmpty();
        }
    }

    private static boolean endedAny(Map<String, SplitState> snapshot) {
        return snapshot.values().stream().anyMatch(SplitState::ended);
    }

    private static Map<String, SplitState> finalOf(Source<String> source, List<String> splits)
            throws Exception {
        try (SourceDriverProbe probe = new SourceDriverProbe(source, splits, CONTEXT, Map.of())) {
            for (int spins = 0; !probe.ended() && spins < 100_000; spins++) {
                probe.poll(50);
            }
            return probe.snapshot();
        }
    }

    /** The keyed count job of these tests: line → (line, count of its key so far). */
    record Seen(String line, long count) {}

    private Pipeline countingPipeline(String name, Path checkpoints, int parallelism) {
        return Pipeline.create(name)
                .parallelism(parallelism)
                .batchSize(16)
                .channelCapacityBatches(4)
                .checkpointing(CheckpointConfig.exactlyOnce(Duration.ofMillis(5), checkpoints))
                .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
    }

    @Test
    void aSplitThatEndedBeforeACheckpointIsNotReadAgainAfterAFailure() throws Exception {
        List<List<String>> data = shortAndLong(20, 20_000);
        Path checkpoints = temp.resolve("ended-chk");
        AtomicBoolean endedCheckpoint = new AtomicBoolean();
        AtomicBoolean failed = new AtomicBoolean();
        Pipeline pipeline =
                countingPipeline("ended-split", checkpoints, 2)
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        if (SourceCrashChild.holdsAnEndedSplit(stats.path())) {
                                            endedCheckpoint.set(true);
                                        }
                                    }
                                });
        CollectSink<Seen> sink = Sinks.collect();
        pipeline.source("input", createSourceWithSplits(data))
                .map(SourceCrashChild::throttle)
                // The long split slowed until a checkpoint holds the ended short one (at least a
                // second): on a loaded machine it could end before any did, and the job with it.
                .map(
                        line -> {
                            if (!endedCheckpoint.get() && line.startsWith("long-")) {
                                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                            }
                            return line;
                        })
                .keyBy(line -> line.substring(0, line.indexOf('-')))
                .<Long, Seen>process(
                        "count",
                        Codecs.LONG,
                        (key, line, state, out) -> {
                            if (endedCheckpoint.get() && failed.compareAndSet(false, true)) {
                                throw new IllegalStateException("injected after an ended split");
                            }
                            long next = (state.value() == null ? 0 : state.value()) + 1;
                            state.update(next);
                            out.collect(new Seen(line, next));
                        })
                .sink("out", sink);

        pipeline.run();

        assertThat(failed).as("the failure came after a checkpoint with an ended split").isTrue();
        Map<String, Long> counts = new HashMap<>();
        for (Seen seen : sink.results()) {
            counts.merge(
                    seen.line().substring(0, seen.line().indexOf('-')), seen.count(), Math::max);
        }
        assertThat(counts).containsEntry("short", 20L).containsEntry("long", 20_000L);
    }

    @Test
    void aFinishedJobStartedAgainOnItsDirectoryAddsNothing() throws Exception {
        List<List<String>> data = shortAndLong(50, 500);
        Path checkpoints = temp.resolve("finished-chk");
        Path output = temp.resolve("finished-out");
        for (int run = 0; run < 2; run++) {
            Pipeline pipeline = countingPipeline("finished", checkpoints, 2);
            pipeline.source("input", createSourceWithSplits(data))
                    .keyBy(line -> line.substring(0, line.indexOf('-')))
                    .<Long, String>process(
                            "count",
                            Codecs.LONG,
                            (key, line, state, out) -> {
                                long next = (state.value() == null ? 0 : state.value()) + 1;
                                state.update(next);
                                out.collect(line + "," + next);
                            })
                    .sink("out", FileSink.<String>to(output));
            pipeline.run();
            assertThat(FileSink.readCommitted(output)).as("after run %d", run + 1).hasSize(550);
        }
    }

    @Test
    void aSplitThatEndedIsNotReadAgainInANewProcessNorWhenTheFinishedJobStartsAgain()
            throws Exception {
        List<List<String>> data = shortAndLong(30, 20_000);
        Path sourceFile = temp.resolve("source.ser");
        try (ObjectOutputStream out = new ObjectOutputStream(Files.newOutputStream(sourceFile))) {
            out.writeObject(createSourceWithSplits(data));
        }
        Path checkpoints = temp.resolve("child-chk");
        Path output = temp.resolve("child-out");
        Path log = temp.resolve("child.log");
        for (String mode : List.of("halt", "run", "run")) {
            Process child =
                    ChildJvm.start(
                            SourceCrashChild.class,
                            null,
                            log.toFile(),
                            sourceFile.toString(),
                            checkpoints.toString(),
                            output.toString(),
                            mode);
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("%s finishes", mode).isTrue();
            assertThat(child.exitValue())
                    .as(Files.readString(log))
                    .isEqualTo(mode.equals("halt") ? 137 : 0);
        }
        assertThat(Files.readString(log)).contains("HALT").contains("DONE");
        List<String> lines = FileSink.readCommitted(output);
        assertThat(lines).doesNotHaveDuplicates().hasSize(20_030);
        assertThat(lines).contains("short-29,30", "long-19999,20000");
    }

    @Test
    void aCheckpointRestoresAtAnotherParallelism() throws Exception {
        List<List<String>> data = new ArrayList<>();
        int total = 0;
        for (int split = 0; split < 4; split++) {
            List<String> records = new ArrayList<>();
            for (int i = 0; i < 3000 * (split + 1); i++) {
                records.add("s" + split + "-" + i);
            }
            total += records.size();
            data.add(records);
        }
        Path checkpoints = temp.resolve("rescale-chk");
        Path output = temp.resolve("rescale-out");
        Source<String> source = createSourceWithSplits(data);
        for (int parallelism : new int[] {2, 3, 1}) {
            Pipeline pipeline = countingPipeline("rescale", checkpoints, parallelism);
            long before = SEEN.get();
            pipeline.source("input", source)
                    .map(SourceCrashChild::throttle)
                    .keyBy(line -> line.substring(0, line.indexOf('-')))
                    .<Long, String>process(
                            "count",
                            Codecs.LONG,
                            (key, line, state, out) -> {
                                long next = (state.value() == null ? 0 : state.value()) + 1;
                                state.update(next);
                                out.collect(line + "," + next);
                            })
                    .map(
                            line -> {
                                SEEN.incrementAndGet();
                                return line;
                            })
                    .sink("out", FileSink.<String>to(output));
            if (parallelism == 1) {
                pipeline.run(); // the last run reads to the end
                break;
            }
            JobHandle job = pipeline.start();
            while (SEEN.get() < before + 500) {
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
            job.triggerCheckpoint().get(30, TimeUnit.SECONDS);
            job.cancel();
            assertThatThrownBy(job::await).isNotNull();
        }
        List<String> lines = FileSink.readCommitted(output);
        assertThat(lines).doesNotHaveDuplicates().hasSize(total);
        for (int split = 0; split < 4; split++) {
            int count = data.get(split).size();
            assertThat(lines).contains("s" + split + "-" + (count - 1) + "," + count);
        }
    }

    @Test
    void aJobRestartedFromACheckpointCountsEveryRecordOnce() throws Exception {
        int n = 20_000;
        AtomicBoolean checkpointed = new AtomicBoolean();
        AtomicBoolean failed = new AtomicBoolean();
        record Count(String key, long count) {}
        Pipeline pipeline =
                Pipeline.create("conformance")
                        .parallelism(2)
                        .batchSize(64)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMillis(5), temp.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO))
                        .listener(
                                new JobListener() {
                                    @Override
                                    public void onCheckpointComplete(CheckpointStats stats) {
                                        checkpointed.set(true);
                                    }
                                });
        CollectSink<Count> sink = Sinks.collect();
        pipeline.source("input", createSource(records(n), 3))
                .keyBy(line -> "k" + (line.hashCode() & 3))
                .<Long, Count>process(
                        "count",
                        Codecs.LONG,
                        (key, line, state, out) -> {
                            if (checkpointed.get() && failed.compareAndSet(false, true)) {
                                throw new IllegalStateException("injected");
                            }
                            long next = (state.value() == null ? 0 : state.value()) + 1;
                            state.update(next);
                            out.collect(new Count(key, next));
                        })
                .sink("out", sink);

        pipeline.run();

        Map<String, Long> finalCounts = new HashMap<>();
        for (Count count : sink.results()) {
            finalCounts.merge(count.key(), count.count(), Math::max);
        }
        assertThat(finalCounts.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(n);
    }
}
