package dev.weir.cli;

import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.LogSink;
import dev.weir.kafka.KafkaCommittable;
import dev.weir.kafka.SinkTransactions;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weir inspect DIR}: what a checkpoint holds, read through the public {@link CheckpointView}
 * (verified against its manifest; reads only, so it works beside a running job).
 */
@Command(
        name = "inspect",
        description = {
            "Prints what a checkpoint or savepoint holds: job, id, files and sizes; each source's"
                    + " split positions and which splits had ended; each operator's keyed states"
                    + " and key count; the prepared transactions of the built-in two-phase-commit"
                    + " sinks (FileSink, LogSink, KafkaSink) that a restore would commit.",
            "DIR is a checkpoint (chk-<n>, a savepoint) or a job's checkpoint directory, whose"
                    + " newest complete checkpoint is shown (the one resume \"latest\" restores).",
            "Example: weir inspect /var/lib/app/chk --values"
        })
final class InspectCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", description = "Checkpoint, or a job's checkpoint directory.")
    Path directory;

    @Option(
            names = "--values",
            description =
                    "Also print the values of keyed value states written with a built-in codec"
                            + " (long, int, double, string, Codecs.auto()).")
    boolean values;

    @Option(
            names = "--max-keys",
            converter = Numbers.PositiveInt.class,
            description = "With --values: most keys printed per state (default ${DEFAULT-VALUE}).")
    int maxKeys = 20;

    PrintStream out = System.out;

    @Override
    public Integer call() {
        if (!Files.isDirectory(directory)) {
            throw new ParameterException(spec.commandLine(), "no directory " + directory);
        }
        CheckpointView view = open(directory);
        printHeader(view);
        printSources(view);
        for (String operator : new TreeSet<>(view.operators())) {
            printOperator(view, operator);
        }
        return 0;
    }

    private CheckpointView open(Path dir) {
        if (Files.exists(dir.resolve("_manifest"))) {
            return CheckpointView.open(dir);
        }
        Optional<CheckpointView> latest = CheckpointView.latest(dir);
        if (latest.isEmpty()) {
            throw new IllegalArgumentException(
                    "no complete checkpoint in "
                            + dir
                            + " (neither a checkpoint with a _manifest nor a directory holding"
                            + " chk-<n> checkpoints)");
        }
        return latest.get();
    }

    private void printHeader(CheckpointView view) {
        out.println(
                (view.isSavepoint() ? "savepoint " : "checkpoint ")
                        + view.id()
                        + " of job '"
                        + view.jobName()
                        + "' in "
                        + view.path());
        out.println(
                "triggered "
                        + view.triggeredAt()
                        + ", max parallelism "
                        + view.maxParallelism()
                        + ", "
                        + view.sizeBytes()
                        + " bytes in "
                        + view.fileSizes().size()
                        + " files");
        view.fileSizes().forEach((name, size) -> out.println("  file " + name + " " + size));
    }

    private void printSources(CheckpointView view) {
        for (String source : view.sources()) {
            out.println("source " + source);
            var ended = view.endedSplits(source);
            var watermarks = view.splitWatermarks(source);
            view.offsets(source)
                    .forEach(
                            (split, offset) ->
                                    out.println(
                                            "  split "
                                                    + split
                                                    + " offset="
                                                    + offset
                                                    + (ended.contains(split)
                                                            ? " ended"
                                                            : " running")
                                                    + (watermarks.containsKey(split)
                                                            ? " watermark=" + watermarks.get(split)
                                                            : "")));
        }
    }

    private void printOperator(CheckpointView view, String operator) {
        List<CheckpointView.KeyedStateInfo> states = view.keyedStates(operator);
        out.println(
                "operator "
                        + operator
                        + " keys="
                        + view.keyCount(operator)
                        + " operator_state_bytes="
                        + view.operatorStateBytes(operator));
        for (CheckpointView.KeyedStateInfo state : states) {
            out.println(
                    "  " + state.kind() + " state " + state.name() + " codec " + state.codecId());
            if (values && state.kind().equals("value")) {
                printValues(view, operator, state);
            }
        }
        if (view.operatorStateBytes(operator) > 0) {
            printTransactions(view, operator);
        }
    }

    private void printValues(
            CheckpointView view, String operator, CheckpointView.KeyedStateInfo state) {
        Codec<?> codec = BUILT_IN.get(String.valueOf(state.codecId()));
        if (codec == null) {
            out.println("    (values not shown: not a built-in codec)");
            return;
        }
        Map<String, Object> sorted = new TreeMap<>();
        view.valueState(operator, state.name(), codec)
                .forEach((key, value) -> sorted.put(String.valueOf(key), value));
        sorted.entrySet().stream()
                .limit(maxKeys)
                .forEach(e -> out.println("    " + e.getKey() + " = " + e.getValue()));
        if (sorted.size() > maxKeys) {
            out.println("    ... " + (sorted.size() - maxKeys) + " more");
        }
    }

    /**
     * Prints an operator's prepared transactions if its state decodes as one of the built-in
     * two-phase-commit sinks' (the checkpoint does not record an operator's kind, so each format is
     * tried and accepted only if what it decodes is consistent: the names, ids and checkpoint ids a
     * sink of that kind writes).
     */
    private void printTransactions(CheckpointView view, String operator) {
        List<SinkFormat<?>> formats =
                List.of(
                        new SinkFormat<>(
                                "FileSink",
                                FileSink.<Object>to(Path.of(".")).committableCodec(),
                                (id, c) ->
                                        c.pending().size() == c.finished().size()
                                                && c.pending().stream()
                                                        .allMatch(n -> n.startsWith(".pending-")),
                                c -> c.pending().size() + " file(s) to publish as " + c.finished()),
                        new SinkFormat<>(
                                "LogSink",
                                LogSink.<Object>to(Path.of("."), "t", null).committableCodec(),
                                (id, c) -> c.checkpointId() == id,
                                c ->
                                        "transaction "
                                                + c.transaction()
                                                + (c.staging().isEmpty()
                                                        ? " (no records)"
                                                        : " staged in " + c.staging())),
                        new SinkFormat<>(
                                "KafkaSink",
                                new KafkaCommittable.CommittableCodec(),
                                (id, c) -> c.checkpointId() == id,
                                SinkTransactions::describe));
        for (SinkFormat<?> format : formats) {
            List<String> lines = format.describe(view, operator);
            if (lines != null) {
                out.println("  " + format.kind + " transactions a restore would commit:");
                if (lines.isEmpty()) {
                    out.println("    none");
                }
                lines.forEach(line -> out.println("    " + line));
                return;
            }
        }
    }

    /** One built-in sink's committable format. */
    private record SinkFormat<C>(
            String kind, Codec<C> codec, IdCheck<C> consistent, Function<C, String> description) {
        /** The committables as lines, or null if the state is not this sink's. */
        List<String> describe(CheckpointView view, String operator) {
            SortedMap<Long, List<C>> pending;
            try {
                pending = view.pendingCommittables(operator, codec);
            } catch (RuntimeException e) {
                return null;
            }
            List<String> lines = new ArrayList<>();
            for (var entry : pending.entrySet()) {
                Predicate<C> ok = c -> consistent.test(entry.getKey(), c);
                if (!entry.getValue().stream().allMatch(ok)) {
                    return null;
                }
                for (C committable : entry.getValue()) {
                    lines.add(
                            "checkpoint " + entry.getKey() + ": " + description.apply(committable));
                }
            }
            return lines;
        }
    }

    /** Whether a committable decoded for checkpoint {@code id} is consistent. */
    private interface IdCheck<C> {
        boolean test(long id, C committable);
    }

    /** The codecs {@code --values} decodes with, by id. */
    private static final Map<String, Codec<?>> BUILT_IN =
            Map.of(
                    Codecs.LONG.id(), Codecs.LONG,
                    Codecs.INT.id(), Codecs.INT,
                    Codecs.DOUBLE.id(), Codecs.DOUBLE,
                    Codecs.STRING.id(), Codecs.STRING,
                    Codecs.auto().id(), Codecs.auto());
}
