package dev.weir.internal.runtime;

import dev.weir.api.checkpoint.CheckpointStats;
import dev.weir.api.metrics.JobMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The local runner's {@link JobMetrics}: one long-lived view per step subtask, task, channel,
 * source and sink subtask, bound by each {@link Execution} to the plain counters of its own tasks,
 * outputs and writers (docs/design/010-metrics.md).
 *
 * <h2>How it is called</h2>
 *
 * An {@link Execution} binds its parts while it is built, on the thread that builds it (so the
 * first attempt's entries exist before {@code Pipeline.start} returns). Binding a counter again for
 * the next attempt first adds the previous attempt's final value (its threads have ended) to the
 * counter's base, so counters only grow across restarts. Observers read on their own threads: the
 * live values are plain fields of the job's objects, read racily; the base and the binding are
 * guarded by the counter's monitor, which the job's threads never take.
 */
final class RuntimeMetrics implements JobMetrics {
    private final String jobName;
    private final long startNanos = System.nanoTime();
    private final IntSupplier restarts;
    private final LongSupplier checkpointsCompleted;
    private final Supplier<CheckpointStats> lastCheckpoint;

    private final Map<String, StepView> steps = new LinkedHashMap<>();
    private final Map<String, TaskView> tasks = new LinkedHashMap<>();
    private final Map<String, ChannelView> channels = new LinkedHashMap<>();
    private final Map<String, SourceView> sources = new LinkedHashMap<>();
    private final Map<String, SinkView> sinks = new LinkedHashMap<>();

    RuntimeMetrics(
            String jobName,
            IntSupplier restarts,
            LongSupplier checkpointsCompleted,
            Supplier<CheckpointStats> lastCheckpoint) {
        this.jobName = jobName;
        this.restarts = restarts;
        this.checkpointsCompleted = checkpointsCompleted;
        this.lastCheckpoint = lastCheckpoint;
    }

    /**
     * A counter over the job's life: the previous attempts' total plus the current attempt's live
     * value.
     */
    static final class Counter {
        private long base;
        private LongSupplier live = () -> 0;

        synchronized long get() {
            return base + live.getAsLong();
        }

        /** Folds the previous attempt's final value into the base and reads {@code next} now. */
        synchronized void bind(LongSupplier next) {
            base += live.getAsLong();
            live = next;
        }
    }

    // ---- binding, by the thread that builds an Execution

    synchronized void bindStep(String step, int subtask, LongSupplier in, LongSupplier out) {
        StepView view =
                steps.computeIfAbsent(step + "#" + subtask, k -> new StepView(step, subtask));
        view.in.bind(in);
        view.out.bind(out);
    }

    synchronized void bindTask(Task task) {
        TaskView view = tasks.computeIfAbsent(task.name(), TaskView::new);
        view.busy.bind(task::busyNanos);
        view.backpressured.bind(task::backpressuredNanos);
    }

    synchronized void bindChannel(String from, String to, SpscChannel channel) {
        ChannelView view =
                channels.computeIfAbsent(from + "->" + to, k -> new ChannelView(from, to));
        view.channel = channel;
    }

    synchronized void bindSource(
            String step, int subtask, LongSupplier lag, LongSupplier alignmentPaused) {
        SourceView view =
                sources.computeIfAbsent(step + "#" + subtask, k -> new SourceView(step, subtask));
        view.lag = lag;
        view.alignmentPaused.bind(alignmentPaused);
    }

    synchronized void bindSink(
            String step,
            int subtask,
            LongSupplier commits,
            LongSupplier commitNanos,
            LongSupplier lastCommitNanos) {
        SinkView view =
                sinks.computeIfAbsent(step + "#" + subtask, k -> new SinkView(step, subtask));
        view.commits.bind(commits);
        view.commitNanos.bind(commitNanos);
        view.last = lastCommitNanos;
    }

    // ---- the view

    @Override
    public String jobName() {
        return jobName;
    }

    @Override
    public synchronized List<StepMetrics> steps() {
        return List.copyOf(steps.values());
    }

    @Override
    public synchronized List<TaskMetrics> tasks() {
        return List.copyOf(tasks.values());
    }

    @Override
    public synchronized List<ChannelMetrics> channels() {
        return List.copyOf(channels.values());
    }

    @Override
    public synchronized List<SourceMetrics> sources() {
        return List.copyOf(sources.values());
    }

    @Override
    public synchronized List<SinkMetrics> sinks() {
        return List.copyOf(sinks.values());
    }

    @Override
    public int restarts() {
        return restarts.getAsInt();
    }

    @Override
    public long checkpointsCompleted() {
        return checkpointsCompleted.getAsLong();
    }

    @Override
    public CheckpointStats lastCheckpoint() {
        return lastCheckpoint.get();
    }

    @Override
    public String toString() {
        List<String> lines = new ArrayList<>();
        for (StepMetrics step : steps()) {
            lines.add(
                    step.step()
                            + "#"
                            + step.subtask()
                            + " in="
                            + step.recordsIn()
                            + " out="
                            + step.recordsOut());
        }
        return "JobMetrics(" + jobName + ", " + lines + ")";
    }

    private static final class StepView implements StepMetrics {
        private final String step;
        private final int subtask;
        final Counter in = new Counter();
        final Counter out = new Counter();

        StepView(String step, int subtask) {
            this.step = step;
            this.subtask = subtask;
        }

        @Override
        public String step() {
            return step;
        }

        @Override
        public int subtask() {
            return subtask;
        }

        @Override
        public long recordsIn() {
            return in.get();
        }

        @Override
        public long recordsOut() {
            return out.get();
        }
    }

    private final class TaskView implements TaskMetrics {
        private final String task;
        final Counter busy = new Counter();
        final Counter backpressured = new Counter();

        TaskView(String task) {
            this.task = task;
        }

        @Override
        public String task() {
            return task;
        }

        /** The figures returned last: each only grows, whatever the racy reads say. */
        private long lastBusy;

        private long lastBackpressured;
        private long lastIdle;

        @Override
        public synchronized long busyNanos() {
            lastBusy = Math.max(lastBusy, busy.get());
            return lastBusy;
        }

        @Override
        public synchronized long backpressuredNanos() {
            lastBackpressured = Math.max(lastBackpressured, backpressured.get());
            return lastBackpressured;
        }

        /**
         * Wall time since the job started less busy and backpressured time; never less than what
         * was returned before (a step that turns out busy after it was counted idle moves time from
         * idle to busy, which a counter cannot show, so idle then stands still for a while).
         */
        @Override
        public synchronized long idleNanos() {
            long wall = System.nanoTime() - startNanos;
            lastIdle = Math.max(lastIdle, wall - busyNanos() - backpressuredNanos());
            return lastIdle;
        }
    }

    private static final class ChannelView implements ChannelMetrics {
        private final String from;
        private final String to;
        volatile SpscChannel channel;

        ChannelView(String from, String to) {
            this.from = from;
            this.to = to;
        }

        @Override
        public String channel() {
            return from + "->" + to;
        }

        @Override
        public String from() {
            return from;
        }

        @Override
        public String to() {
            return to;
        }

        @Override
        public int queuedItems() {
            return channel.queuedItems();
        }

        @Override
        public int capacityItems() {
            return channel.capacityItems();
        }

        @Override
        public long queuedBytes() {
            return channel.bytesQueued();
        }

        @Override
        public long capacityBytes() {
            return channel.capacityBytes();
        }
    }

    private static final class SourceView implements SourceMetrics {
        private final String step;
        private final int subtask;
        volatile LongSupplier lag = () -> -1;
        final Counter alignmentPaused = new Counter();

        /** The figure returned last: it only grows, whatever the racy reads say. */
        private long lastPaused;

        SourceView(String step, int subtask) {
            this.step = step;
            this.subtask = subtask;
        }

        @Override
        public String step() {
            return step;
        }

        @Override
        public int subtask() {
            return subtask;
        }

        @Override
        public long lag() {
            return lag.getAsLong();
        }

        @Override
        public synchronized long alignmentPausedNanos() {
            lastPaused = Math.max(lastPaused, alignmentPaused.get());
            return lastPaused;
        }
    }

    private static final class SinkView implements SinkMetrics {
        private final String step;
        private final int subtask;
        final Counter commits = new Counter();
        final Counter commitNanos = new Counter();
        volatile LongSupplier last = () -> 0;

        SinkView(String step, int subtask) {
            this.step = step;
            this.subtask = subtask;
        }

        @Override
        public String step() {
            return step;
        }

        @Override
        public int subtask() {
            return subtask;
        }

        @Override
        public long commits() {
            return commits.get();
        }

        @Override
        public long commitNanos() {
            return commitNanos.get();
        }

        @Override
        public long lastCommitNanos() {
            return last.getAsLong();
        }
    }
}
