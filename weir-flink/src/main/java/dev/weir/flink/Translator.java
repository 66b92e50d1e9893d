package dev.weir.flink;

import dev.weir.api.JobListener;
import dev.weir.api.OutputTag;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.function.FunctionFactory;
import dev.weir.api.function.KeyedProcessFunction;
import dev.weir.api.plan.PipelinePlan;
import dev.weir.api.plan.Step;
import dev.weir.api.sink.IdempotentSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.TwoPhaseCommitSink;
import dev.weir.api.source.Source;
import dev.weir.api.state.KeyGroups;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/**
 * Translates a {@link PipelinePlan} into a Flink DataStream job, step by step:
 *
 * <pre>
 * SourceStep        → env.fromSource(FlinkSource)            splits, readers, enumerator
 * MapStep           → map(RichMapFunction)                    the user's function inside
 * FilterStep        → filter(...)
 * FlatMapStep       → flatMap(...)
 * UnionStep         → union(...)
 * SourceStep with a watermark strategy → env.fromSource(FlinkSource, FlinkWatermarks), per split
 * TimestampsStep    → assignTimestampsAndWatermarks(FlinkWatermarks)
 * KeyedProcessStep  → keyBy(WeirKey, Weir key groups).process(FlinkProcessFunction)
 * SideOutputStep    → getSideOutput(OutputTag with the same id)
 * SinkStep          → TwoPhaseCommitOperator | IdempotentOperator | sinkTo(PlainSink)
 * </pre>
 *
 * Every operator gets the step's name as its uid, so Flink savepoints map state by Weir's step
 * names. What it cannot translate is refused here, before anything runs, with the step and the
 * feature named ({@link #refusals}).
 */
final class Translator {
    /** The configuration and the job graph, built on {@code env}. */
    record Job(StreamExecutionEnvironment env, AtomicInteger attempts) {}

    private Translator() {}

    /**
     * What in {@code plan} Flink cannot run, one line per feature naming the step; empty if the
     * plan translates.
     */
    static List<String> refusals(PipelinePlan plan) {
        List<String> refusals = new ArrayList<>();
        if (plan.settings().processingTimeClock() != null) {
            refusals.add(
                    "a processing-time clock of its own (Pipeline.processingTimeClock) is not"
                            + " translated to Flink, whose processing time is the machine's"
                            + " clock; run the pipeline on Weir's runtime to drive time in a test");
        }
        Set<Integer> processSteps = new HashSet<>();
        for (Step step : plan.steps()) {
            if (step instanceof Step.KeyedProcessStep k) {
                processSteps.add(k.id());
            } else if (step instanceof Step.SideOutputStep s) {
                if (!processSteps.contains(s.input())) {
                    refusals.add(
                            "step '"
                                    + s.name()
                                    + "': a side output of a step other than a keyed process"
                                    + " step is not translated to Flink");
                }
            }
        }
        return refusals;
    }

    private static boolean overridesEndOfInput(
            FunctionFactory<? extends KeyedProcessFunction<?, ?, ?>> factory) {
        Class<?> type = factory.create().getClass();
        try {
            return type.getMethod(
                                    "onEndOfInput",
                                    KeyedProcessFunction.EndOfInputContext.class,
                                    dev.weir.api.function.Collector.class)
                            .getDeclaringClass()
                    != KeyedProcessFunction.class;
        } catch (NoSuchMethodException e) {
            throw new AssertionError("KeyedProcessFunction lost onEndOfInput", e);
        }
    }

    /** Flink's settings for {@code plan}: checkpoints, restarts, state backend. */
    static Configuration configuration(PipelinePlan plan) {
        PipelinePlan.Settings settings = plan.settings();
        Configuration conf = new Configuration();
        conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        CheckpointConfig checkpoints = settings.checkpoints();
        if (checkpoints.mode() != CheckpointingMode.NONE) {
            conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
            conf.set(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                    checkpoints.directory().toAbsolutePath().toUri().toString());
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval(checkpoints));
            conf.set(
                    CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                    checkpoints.mode() == CheckpointingMode.EXACTLY_ONCE
                            ? org.apache.flink.core.execution.CheckpointingMode.EXACTLY_ONCE
                            : org.apache.flink.core.execution.CheckpointingMode.AT_LEAST_ONCE);
            conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, checkpoints.timeout());
            conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS, checkpoints.minPause());
            conf.set(CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS, checkpoints.maxConcurrent());
            conf.set(
                    CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, checkpoints.tolerableFailures());
            conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, checkpoints.retained());
            conf.set(
                    CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                    ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        }
        restarts(settings.restartStrategy(), conf);
        Path restoreFrom = restoreFrom(settings);
        if (restoreFrom != null) {
            conf.set(
                    StateRecoveryOptions.SAVEPOINT_PATH,
                    restoreFrom.toAbsolutePath().toUri().toString());
            conf.set(
                    StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE,
                    settings.allowNonRestoredState());
        }
        return conf;
    }

    /**
     * What a new run restores, as on Weir's runtime: the savepoint asked for; else, by the
     * checkpoint config's {@code resume}, the newest complete Flink checkpoint in its directory
     * ({@code "latest"}), a given path, or nothing ({@code "none"}). Flink keeps the checkpoints of
     * a failed or cancelled job for this ({@code RETAIN_ON_CANCELLATION}); those of a finished job
     * it deletes, so a finished pipeline starts again from the beginning.
     */
    static Path restoreFrom(PipelinePlan.Settings settings) {
        if (settings.fromSavepoint() != null) {
            return settings.fromSavepoint();
        }
        CheckpointConfig checkpoints = settings.checkpoints();
        if (checkpoints.mode() == CheckpointingMode.NONE || checkpoints.resume().equals("none")) {
            return null;
        }
        if (!checkpoints.resume().equals("latest")) {
            return Path.of(checkpoints.resume());
        }
        Path newest = newestCheckpoint(checkpoints.directory());
        Path finished = checkpoints.directory().resolve(FINISHED_MARKER);
        if (Files.exists(finished)
                && (newest == null || isNewer(finished, newest.resolve("_metadata")))) {
            String run;
            try {
                run = Files.readString(finished).strip();
            } catch (IOException e) {
                run = "an earlier run";
            }
            throw new IllegalStateException(
                    "this pipeline already finished on Flink ("
                            + run
                            + ") with the checkpoint directory "
                            + checkpoints.directory()
                            + ", and Flink deletes a finished job's checkpoints, so this run cannot"
                            + " resume from its end (on Weir's runtime it would, and add nothing)."
                            + " Its output is complete. To run it again from the beginning, clear"
                            + " the checkpoint directory and the sinks' output, or give"
                            + " CheckpointConfig.withResume(\"none\") and new output locations");
        }
        return newest;
    }

    /**
     * The file a local or remote Flink job of this runner writes into its checkpoint directory when
     * it finishes (not when it fails, is cancelled or stops with a savepoint): a run that resumes
     * "latest" after it is refused with the reason, instead of restoring an older run's retained
     * checkpoint or starting over into sinks that already hold the output.
     */
    static final String FINISHED_MARKER = "_weir-finished-on-flink";

    private static boolean isNewer(Path a, Path b) {
        return modified(a).compareTo(modified(b)) >= 0;
    }

    /** The {@code <job>/chk-<n>} directory under {@code directory} whose metadata is newest. */
    static Path newestCheckpoint(Path directory) {
        if (!Files.isDirectory(directory)) {
            return null;
        }
        try (Stream<Path> found =
                Files.find(
                        directory,
                        3,
                        (path, attributes) ->
                                path.getFileName().toString().equals("_metadata")
                                        && path.getParent()
                                                .getFileName()
                                                .toString()
                                                .startsWith("chk-"))) {
            return found.max(Comparator.comparing(Translator::modified))
                    .map(Path::getParent)
                    .orElse(null);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot look for Flink checkpoints to resume in " + directory, e);
        }
    }

    private static FileTime modified(Path path) {
        try {
            return Files.getLastModifiedTime(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Weir's interval zero means "only when asked"; Flink has no such mode (and waits for a
     * checkpoint after a bounded input ends before committing), so zero becomes {@value
     * #ON_DEMAND_INTERVAL_MS} ms.
     */
    static final long ON_DEMAND_INTERVAL_MS = 100;

    private static Duration interval(CheckpointConfig checkpoints) {
        Duration interval = checkpoints.interval();
        return interval.toMillis() < 10
                ? Duration.ofMillis(interval.isZero() ? ON_DEMAND_INTERVAL_MS : 10)
                : interval;
    }

    private static void restarts(RestartStrategy strategy, Configuration conf) {
        if (strategy instanceof RestartStrategy.NoRestart) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        } else if (strategy instanceof RestartStrategy.FixedDelay f) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, f.maxAttempts());
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, f.delay());
        } else if (strategy instanceof RestartStrategy.ExponentialBackoff e) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                    e.initial());
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF, e.max());
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_BACKOFF_MULTIPLIER,
                    e.multiplier());
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_JITTER_FACTOR,
                    e.jitter());
            conf.set(
                    RestartStrategyOptions
                            .RESTART_STRATEGY_EXPONENTIAL_DELAY_RESET_BACKOFF_THRESHOLD,
                    e.resetAfter());
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS,
                    e.maxAttempts());
        } else if (strategy instanceof RestartStrategy.FailureRate r) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "failure-rate");
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_MAX_FAILURES_PER_INTERVAL,
                    r.maxFailures());
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_FAILURE_RATE_INTERVAL,
                    r.window());
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FAILURE_RATE_DELAY, r.delay());
        }
    }

    /**
     * Builds {@code plan}'s operators on {@code env}. {@code live}: share the user's objects with
     * the tasks (same JVM, see {@link Shared}).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Job build(
            PipelinePlan plan, StreamExecutionEnvironment env, String jobId, boolean live) {
        PipelinePlan.Settings settings = plan.settings();
        env.setParallelism(settings.parallelism());
        env.setMaxParallelism(settings.maxParallelism());
        env.getConfig().enableObjectReuse(); // Weir passes records between steps without copies
        env.getConfig().setAutoWatermarkInterval(settings.autoWatermarkMillis());
        boolean checkpointing = settings.checkpoints().mode() != CheckpointingMode.NONE;
        AtomicInteger attempts = new AtomicInteger();
        Shared<AtomicInteger> attemptsSeen = Shared.liveOnly(jobId, "__attempts", attempts);
        Shared<JobListener> listener =
                settings.listener() == null
                        ? null
                        : Shared.liveOnly(jobId, "__listener", settings.listener());
        CodecTypeInfo<Object> type = CodecTypeInfo.auto();
        List<DataStream<Object>> streams = new ArrayList<>();
        boolean firstSource = true;
        for (Step step : plan.steps()) {
            int parallelism = step.parallelism() > 0 ? step.parallelism() : settings.parallelism();
            DataStream<Object> out;
            if (step instanceof Step.SourceStep s) {
                Shared<Source<Object>> source =
                        Shared.of(jobId, s.name(), (Source<Object>) s.source(), live);
                // A source that assigns event time: Flink's per-split generation in fromSource.
                WatermarkStrategy<Object> watermarks =
                        s.watermarks() == null
                                ? WatermarkStrategy.noWatermarks()
                                : sourceWatermarks(
                                        Shared.of(
                                                jobId,
                                                s.name() + "#watermarks",
                                                (dev.weir.api.time.WatermarkStrategy<Object>)
                                                        s.watermarks(),
                                                live),
                                        s.watermarks().idleTimeoutMillis());
                out =
                        env.fromSource(
                                        new FlinkSource<>(
                                                source,
                                                firstSource ? listener : null,
                                                parallelism,
                                                settings.batchSize()),
                                        watermarks,
                                        s.name(),
                                        type)
                                .setParallelism(parallelism)
                                .uid(s.name());
                firstSource = false;
            } else if (step instanceof Step.MapStep m) {
                Shared<dev.weir.api.function.MapFunction<Object, Object>> function =
                        Shared.of(
                                jobId,
                                m.name(),
                                (dev.weir.api.function.MapFunction) m.function(),
                                live);
                out =
                        streams.get(m.input())
                                .map(new MapAdapter(function), type)
                                .name(m.name())
                                .uid(m.name())
                                .setParallelism(parallelism);
            } else if (step instanceof Step.FilterStep f) {
                Shared<dev.weir.api.function.FilterFunction<Object>> function =
                        Shared.of(
                                jobId,
                                f.name(),
                                (dev.weir.api.function.FilterFunction) f.function(),
                                live);
                out =
                        streams.get(f.input())
                                .filter(new FilterAdapter(function))
                                .name(f.name())
                                .uid(f.name())
                                .setParallelism(parallelism);
            } else if (step instanceof Step.FlatMapStep f) {
                Shared<dev.weir.api.function.FlatMapFunction<Object, Object>> function =
                        Shared.of(
                                jobId,
                                f.name(),
                                (dev.weir.api.function.FlatMapFunction) f.function(),
                                live);
                out =
                        streams.get(f.input())
                                .flatMap(new FlatMapAdapter(function), type)
                                .name(f.name())
                                .uid(f.name())
                                .setParallelism(parallelism);
            } else if (step instanceof Step.UnionStep u) {
                DataStream<Object> first = streams.get(u.inputs().get(0));
                DataStream<Object>[] rest = new DataStream[u.inputs().size() - 1];
                for (int i = 1; i < u.inputs().size(); i++) {
                    rest[i - 1] = streams.get(u.inputs().get(i));
                }
                out = rest.length == 0 ? first : first.union(rest);
            } else if (step instanceof Step.KeyedProcessStep k) {
                Shared<dev.weir.api.function.KeySelector<Object, Object>> selector =
                        Shared.of(
                                jobId,
                                k.name() + "/key",
                                (dev.weir.api.function.KeySelector) k.keySelector(),
                                live);
                Shared<FunctionFactory<? extends KeyedProcessFunction<?, ?, ?>>> factory =
                        Shared.of(jobId, k.name(), k.factory(), live);
                var keyed =
                        streams.get(k.input())
                                .keyBy(
                                        new KeyAdapter(selector, settings.maxParallelism()),
                                        new WeirKeyTypeInfo(settings.maxParallelism()));
                FlinkProcessFunction function =
                        new FlinkProcessFunction(factory, k.name(), attemptsSeen);
                // onEndOfInput needs the operator's end-of-input call and its key iteration.
                out =
                        (overridesEndOfInput(k.factory())
                                        ? keyed.transform(
                                                k.name(), type, new EndOfInputOperator(function))
                                        : keyed.process(function, type))
                                .name(k.name())
                                .uid(k.name())
                                .setParallelism(parallelism);
            } else if (step instanceof Step.SideOutputStep s) {
                out =
                        ((SingleOutputStreamOperator<Object>) streams.get(s.input()))
                                .getSideOutput(flinkTag((OutputTag<Object>) s.tag()));
            } else if (step instanceof Step.SinkStep s) {
                out =
                        sink(
                                s,
                                streams.get(s.input()),
                                plan.name(),
                                jobId,
                                live,
                                checkpointing,
                                attemptsSeen,
                                parallelism);
            } else if (step instanceof Step.TimestampsStep t) {
                Shared<dev.weir.api.time.WatermarkStrategy<Object>> strategy =
                        Shared.of(
                                jobId,
                                t.name(),
                                (dev.weir.api.time.WatermarkStrategy<Object>) t.strategy(),
                                live);
                out =
                        streams.get(t.input())
                                .assignTimestampsAndWatermarks(new FlinkWatermarks(strategy))
                                .name(t.name())
                                .uid(t.name())
                                .setParallelism(parallelism);
            } else {
                throw new IllegalStateException("a step of an unknown kind: " + step);
            }
            streams.add(out);
        }
        return new Job(env, attempts);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static DataStream<Object> sink(
            Step.SinkStep s,
            DataStream<Object> input,
            String jobName,
            String jobId,
            boolean live,
            boolean checkpointing,
            Shared<AtomicInteger> attempts,
            int parallelism) {
        Sink<Object> sink = (Sink<Object>) s.sink();
        if (sink instanceof TwoPhaseCommitSink<?, ?> twoPhase) {
            return input.transform(
                            "sink: " + s.name(),
                            CodecTypeInfo.auto(),
                            new TwoPhaseCommitOperator(
                                    Shared.of(jobId, s.name(), (TwoPhaseCommitSink) twoPhase, live),
                                    jobName,
                                    s.name(),
                                    checkpointing,
                                    attempts))
                    .uid(s.name())
                    .setParallelism(parallelism);
        }
        if (sink instanceof IdempotentSink<?, ?> idempotent) {
            return input.transform(
                            "sink: " + s.name(),
                            CodecTypeInfo.auto(),
                            new IdempotentOperator(
                                    Shared.of(jobId, s.name(), (IdempotentSink) idempotent, live),
                                    jobName,
                                    s.name(),
                                    checkpointing,
                                    attempts))
                    .uid(s.name())
                    .setParallelism(parallelism);
        }
        input.sinkTo(
                        new PlainSink(
                                Shared.of(jobId, s.name(), sink, live),
                                jobName,
                                s.name(),
                                attempts))
                .name("sink: " + s.name())
                .uid(s.name())
                .setParallelism(parallelism);
        return input;
    }

    /** The Flink side output of a Weir tag: same id, records written with {@code Codecs.auto()}. */
    static <X> org.apache.flink.util.OutputTag<X> flinkTag(OutputTag<X> tag) {
        return new org.apache.flink.util.OutputTag<>(tag.id(), CodecTypeInfo.auto());
    }

    /** A Weir map function as a Flink one. */
    static final class MapAdapter extends RichMapFunction<Object, Object> {
        private static final long serialVersionUID = 1L;
        private final Shared<dev.weir.api.function.MapFunction<Object, Object>> shared;
        private transient dev.weir.api.function.MapFunction<Object, Object> function;

        MapAdapter(Shared<dev.weir.api.function.MapFunction<Object, Object>> shared) {
            this.shared = shared;
        }

        @Override
        public void open(OpenContext context) {
            function = shared.get();
        }

        @Override
        public Object map(Object value) throws Exception {
            try {
                return function.map(value);
            } catch (Exception e) {
                FlinkFailures.throwReplacement(e);
                throw e;
            }
        }
    }

    /** A Weir filter function as a Flink one. */
    static final class FilterAdapter extends RichFilterFunction<Object> {
        private static final long serialVersionUID = 1L;
        private final Shared<dev.weir.api.function.FilterFunction<Object>> shared;
        private transient dev.weir.api.function.FilterFunction<Object> function;

        FilterAdapter(Shared<dev.weir.api.function.FilterFunction<Object>> shared) {
            this.shared = shared;
        }

        @Override
        public void open(OpenContext context) {
            function = shared.get();
        }

        @Override
        public boolean filter(Object value) throws Exception {
            try {
                return function.test(value);
            } catch (Exception e) {
                FlinkFailures.throwReplacement(e);
                throw e;
            }
        }
    }

    /** A Weir flat-map function as a Flink one. */
    static final class FlatMapAdapter extends RichFlatMapFunction<Object, Object> {
        private static final long serialVersionUID = 1L;
        private final Shared<dev.weir.api.function.FlatMapFunction<Object, Object>> shared;
        private transient dev.weir.api.function.FlatMapFunction<Object, Object> function;

        FlatMapAdapter(Shared<dev.weir.api.function.FlatMapFunction<Object, Object>> shared) {
            this.shared = shared;
        }

        @Override
        public void open(OpenContext context) {
            function = shared.get();
        }

        @Override
        public void flatMap(Object value, Collector<Object> out) throws Exception {
            try {
                function.flatMap(value, out::collect);
            } catch (Exception e) {
                FlinkFailures.throwReplacement(e);
                throw e;
            }
        }
    }

    /**
     * The Weir key selector, its key wrapped in a {@link WeirKey} so that Flink routes it by Weir's
     * key group; each key class is checked once ({@link KeyGroups#checkKey}).
     */
    static final class KeyAdapter implements KeySelector<Object, WeirKey> {
        private static final long serialVersionUID = 1L;
        private static final int CACHED_KEYS = 64;
        private final Shared<dev.weir.api.function.KeySelector<Object, Object>> shared;
        private final int maxParallelism;
        private transient Class<?> checked;
        private transient dev.weir.api.function.KeySelector<Object, Object> selector;
        private transient int[] hashes;
        private transient WeirKey[] cache;

        KeyAdapter(
                Shared<dev.weir.api.function.KeySelector<Object, Object>> shared,
                int maxParallelism) {
            this.shared = shared;
            this.maxParallelism = maxParallelism;
        }

        @Override
        public WeirKey getKey(Object value) throws Exception {
            if (selector == null) {
                selector = shared.get();
                hashes = WeirKey.hashesOfGroups(maxParallelism);
                cache = new WeirKey[CACHED_KEYS];
            }
            Object key;
            try {
                key = selector.getKey(value);
            } catch (Exception e) {
                FlinkFailures.throwReplacement(e);
                throw e;
            }
            if (key == null) {
                throw new NullPointerException("key selector returned null for " + value);
            }
            if (key.getClass() != checked) {
                KeyGroups.checkKey(key);
                checked = key.getClass();
            }
            // A direct-mapped cache of recent keys: a hit skips Weir's hash mix and the
            // allocation (the selector runs on both sides of every shuffle, for every record).
            int slot = key.hashCode() & (CACHED_KEYS - 1);
            WeirKey cached = cache[slot];
            if (cached != null && cached.key().equals(key)) {
                return cached;
            }
            WeirKey wrapped = WeirKey.of(key, maxParallelism, hashes);
            cache[slot] = wrapped;
            return wrapped;
        }
    }

    /** A source's Weir strategy as Flink's, with its idleness timeout (0 for none). */
    private static WatermarkStrategy<Object> sourceWatermarks(
            Shared<dev.weir.api.time.WatermarkStrategy<Object>> strategy, long idleMillis) {
        WatermarkStrategy<Object> flink = new FlinkWatermarks(strategy);
        return idleMillis > 0 ? flink.withIdleness(java.time.Duration.ofMillis(idleMillis)) : flink;
    }
}
