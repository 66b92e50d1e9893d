package dev.weir.api.metrics;

import dev.weir.api.checkpoint.CheckpointStats;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * A read-only, live view of a running job's figures.
 *
 * <h2>How it is read</h2>
 *
 * The lists are fixed when the job starts (one entry per step and subtask, per task, per channel,
 * per source and sink subtask) and keep their order across restarts, so a reader can bind to each
 * entry once. Every getter reads the current value on the caller's thread: the job's threads update
 * plain fields, per batch where they can, and the view reads them without synchronisation, so a
 * figure may lag its task by one batch and two figures read one after the other are not a
 * consistent cut. Counters ({@code records...}, {@code ...Nanos}, {@code commits}) only grow over
 * the job's life: a restart adds the new attempt's counts to the previous attempts' (records
 * replayed after a restore are counted again: they were processed again). Gauges (channel fill,
 * lag) describe the current attempt.
 *
 * <p>Thread-safe; reading costs the job nothing.
 */
public interface JobMetrics {
    /** {@return the job's name} */
    String jobName();

    /** {@return records through every step (sources, operators, sinks), by step and subtask} */
    List<StepMetrics> steps();

    /** {@return where each task's time went} */
    List<TaskMetrics> tasks();

    /** {@return the channels between tasks, with how much they hold} */
    List<ChannelMetrics> channels();

    /**
     * {@return each source subtask's lag behind the end of its input, where the source can tell}
     */
    List<SourceMetrics> sources();

    /**
     * {@return each sink subtask's commits, for sinks that commit: two-phase-commit and write-ahead
     * sinks (phase 2) and idempotent sinks (the upsert at each barrier)}
     */
    List<SinkMetrics> sinks();

    /** {@return how many times the job restarted after a failure so far} */
    int restarts();

    /** {@return how many checkpoints (and savepoints) completed so far, restarts included} */
    long checkpointsCompleted();

    /** {@return the newest completed checkpoint's figures, or null before the first} */
    CheckpointStats lastCheckpoint();

    /** Records through one subtask of one step. */
    interface StepMetrics {
        /** {@return the step's name, as given in the pipeline} */
        String step();

        /** {@return the subtask index, from 0} */
        int subtask();

        /** {@return records the step received; for a source, the records it read from its input} */
        long recordsIn();

        /**
         * Records the step emitted to the steps that read it (main and side outputs); for a sink,
         * the records it wrote. A record emitted to a side output nobody reads is not counted.
         *
         * @return the count over the job's life, restarts included
         */
        long recordsOut();
    }

    /**
     * Where one task (a chain of steps on one subtask, named {@code vertex#subtask}) spent its time
     * since the job started: busy (steps that moved records or events), backpressured (its output
     * waited for room in a downstream channel) and idle (the rest of the wall time).
     */
    interface TaskMetrics {
        /** {@return the task's name, {@code vertex#subtask}} */
        String task();

        /** {@return nanoseconds spent in steps that moved something} */
        long busyNanos();

        /** {@return nanoseconds during which the task's output waited for room downstream} */
        long backpressuredNanos();

        /** {@return nanoseconds neither busy nor backpressured since the job started} */
        long idleNanos();
    }

    /** One channel between a producer and a consumer subtask. */
    interface ChannelMetrics {
        /** {@return the channel's name, {@code producer#i->consumer#j}} */
        String channel();

        /** {@return the producing task, {@code vertex#subtask}} */
        String from();

        /** {@return the consuming task, {@code vertex#subtask}} */
        String to();

        /** {@return batches and events waiting in the channel now} */
        int queuedItems();

        /**
         * {@return how many batches and events the channel takes at most now: its configured
         * capacity, or fewer while its consumer is slow, since Weir keeps what waits in a channel
         * to about 200 ms of the consumer's work so that checkpoint barriers are not held up. Items
         * queued before the consumer slowed down stay, so {@link #queuedItems} can exceed it for a
         * while}
         */
        int capacityItems();

        /** {@return estimated bytes of the records waiting now} */
        long queuedBytes();

        /** {@return estimated bytes of records the channel holds before it pushes back} */
        long capacityBytes();

        /**
         * How full the channel is, from 0 to 1: the larger of its item and byte fill. A channel
         * that stays near 1 is a backpressured edge: its consumer is the slower side.
         *
         * @return the fill now, from 0 (empty) to 1 (full)
         */
        default double fill() {
            double items = capacityItems() == 0 ? 0 : (double) queuedItems() / capacityItems();
            double bytes = capacityBytes() <= 0 ? 0 : (double) queuedBytes() / capacityBytes();
            return Math.min(1.0, Math.max(items, bytes));
        }
    }

    /** One source subtask. */
    interface SourceMetrics {
        /** {@return the source step's name} */
        String step();

        /** {@return the subtask index, from 0} */
        int subtask();

        /**
         * Records (or offsets) between what the subtask has read and the end of its input now,
         * summed over its splits that can tell ({@link dev.weir.api.source.SourceReader#lag()}); -1
         * if none can. Refreshed by the source's own thread between polls, at most every 100 ms.
         *
         * @return the lag now, or -1 if unknown
         */
        long lag();

        /**
         * Time the subtask skipped reads because it was more than {@code
         * Pipeline.watermarkAlignment} ahead of a sibling in event time, over the job's life
         * (restarts included). Growing steadily: this subtask's input is ahead of the others' and
         * waits for them, which keeps the state of windows and joins downstream small.
         *
         * @return nanoseconds paused for alignment
         */
        long alignmentPausedNanos();
    }

    /**
     * One subtask of a sink that commits: its phase-2 commits, or for an idempotent sink its
     * upserts at barriers (the moment its records become visible).
     */
    interface SinkMetrics {
        /** {@return the sink step's name} */
        String step();

        /** {@return the subtask index, from 0} */
        int subtask();

        /** {@return transactions committed (for an idempotent sink, upserts written) so far} */
        long commits();

        /** {@return nanoseconds spent in all those commits} */
        long commitNanos();

        /** {@return nanoseconds the newest commit took, or 0 before the first} */
        long lastCommitNanos();
    }

    /**
     * A view with no steps, tasks or channels: for runners that keep no figures of their own
     * (checkpoints and restarts still come from {@code checkpoints} and {@code restarts}).
     *
     * @param jobName the job's name
     * @param restarts read on each call of {@link #restarts()}
     * @param checkpoints read on each call; the completed checkpoints so far, oldest first
     * @return a live view over the two suppliers
     */
    static JobMetrics of(
            String jobName, IntSupplier restarts, Supplier<List<CheckpointStats>> checkpoints) {
        return new JobMetrics() {
            @Override
            public String jobName() {
                return jobName;
            }

            @Override
            public List<StepMetrics> steps() {
                return List.of();
            }

            @Override
            public List<TaskMetrics> tasks() {
                return List.of();
            }

            @Override
            public List<ChannelMetrics> channels() {
                return List.of();
            }

            @Override
            public List<SourceMetrics> sources() {
                return List.of();
            }

            @Override
            public List<SinkMetrics> sinks() {
                return List.of();
            }

            @Override
            public int restarts() {
                return restarts.getAsInt();
            }

            @Override
            public long checkpointsCompleted() {
                return checkpoints.get().size();
            }

            @Override
            public CheckpointStats lastCheckpoint() {
                List<CheckpointStats> all = checkpoints.get();
                return all.isEmpty() ? null : all.get(all.size() - 1);
            }
        };
    }
}
