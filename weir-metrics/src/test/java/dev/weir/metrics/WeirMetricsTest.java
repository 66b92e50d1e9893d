package dev.weir.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobHandle;
import dev.weir.api.JobResult;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import dev.weir.api.testing.FaultPoint;
import dev.weir.api.testing.Faults;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WeirMetricsTest {
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        Faults.disarm();
    }

    /** numbers(1..10,000) → evens → keyBy(n % 10) → sum → out, at parallelism 2. */
    static JobHandle boundedJob(String name) {
        Pipeline pipeline = Pipeline.create(name).parallelism(2);
        pipeline.source("numbers", Sources.sequence(1, 10_000))
                .filter(n -> n % 2 == 0)
                .name("evens")
                .keyBy(n -> n % 10)
                .reduce("sum", Long::sum)
                .sink("out", Sinks.counting());
        return pipeline.start();
    }

    private Pipeline checkpointedJob(String name) {
        Pipeline pipeline =
                Pipeline.create(name)
                        .parallelism(2)
                        .checkpointing(
                                // Only the final checkpoint: the interval is longer than the job.
                                CheckpointConfig.exactlyOnce(
                                        Duration.ofMinutes(2), dir.resolve("chk")))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        pipeline.source("numbers", Sources.sequence(1, 1_000))
                .keyBy(n -> n % 100)
                .reduce("sum", Long::sum)
                .sink("out", FileSink.to(dir.resolve("out")));
        return pipeline;
    }

    private static double sum(SimpleMeterRegistry registry, String name, String step) {
        return registry.find(name).tag("step", step).functionCounters().stream()
                .mapToDouble(FunctionCounter::count)
                .sum();
    }

    @Test
    void stepCountersInTheRegistryAreTheJobsExactRecordCounts() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JobHandle job = boundedJob("counted");
        WeirMetrics.bind(job, registry);
        job.await(Duration.ofMinutes(2));

        assertThat(sum(registry, "weir.step.records.out", "numbers")).isEqualTo(10_000);
        assertThat(sum(registry, "weir.step.records.in", "evens")).isEqualTo(10_000);
        assertThat(sum(registry, "weir.step.records.out", "evens")).isEqualTo(5_000);
        assertThat(sum(registry, "weir.step.records.in", "sum")).isEqualTo(5_000);
        assertThat(sum(registry, "weir.step.records.in", "out")).isEqualTo(5_000);
        assertThat(registry.find("weir.step.records.in").tag("job", "counted").meters())
                .hasSize(8); // four steps, two subtasks
        assertThat(registry.find("weir.task.busy.time").meters()).hasSize(4);
        assertThat(registry.find("weir.channel.fill").gauges())
                .hasSize(4)
                .allSatisfy(g -> assertThat(g.value()).isZero());
        assertThat(registry.get("weir.job.restarts").functionCounter().count()).isZero();
        assertThat(registry.get("weir.checkpoints.completed").functionCounter().count()).isZero();
        assertThat(registry.get("weir.checkpoint.size").gauge().value()).isNaN(); // none yet
    }

    @Test
    void checkpointMetersAppearAfterACheckpoint() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JobHandle job = checkpointedJob("checkpointed").start();
        WeirMetrics.bind(job, registry);
        job.await(Duration.ofMinutes(2));

        long completed = job.checkpointStats().size();
        assertThat(completed).isPositive();
        assertThat(registry.get("weir.checkpoints.completed").functionCounter().count())
                .isEqualTo(completed);
        assertThat(registry.get("weir.checkpoint.size").gauge().value())
                .isEqualTo(job.checkpointStats().get((int) completed - 1).sizeBytes());
        assertThat(registry.get("weir.checkpoint.duration").timeGauge().value()).isNotNaN();
        assertThat(registry.get("weir.checkpoint.alignment").timeGauge().value()).isNotNaN();
        assertThat(registry.find("weir.sink.commit").functionTimers())
                .hasSize(2)
                .allSatisfy(t -> assertThat(t.count()).isPositive());
    }

    @Test
    void restartsAreCountedAfterAnInjectedFailure() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Faults.throwAt(FaultPoint.SINK_AFTER_COMMIT, 1); // the final checkpoint's first commit
        JobHandle job = checkpointedJob("restarted").start();
        WeirMetrics.bind(job, registry);
        JobResult result = job.await(Duration.ofMinutes(2));

        assertThat(result.restarts()).isPositive();
        assertThat(registry.get("weir.job.restarts").functionCounter().count())
                .isEqualTo(result.restarts());
        // Counters span the attempts: the first one alone read all 1,000.
        assertThat(sum(registry, "weir.step.records.in", "numbers")).isGreaterThanOrEqualTo(1_000);
    }

    @Test
    void nothingIsRegisteredWithoutABindAndCloseRemovesWhatBindAdded() throws Exception {
        JobHandle job = boundedJob("unbound");
        job.await(Duration.ofMinutes(2));
        assertThat(Metrics.globalRegistry.getMeters())
                .extracting(m -> m.getId().getName())
                .noneMatch(name -> name.startsWith("weir."));

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MeterBinding binding = WeirMetrics.bind(job, registry);
        assertThat(registry.getMeters()).hasSameSizeAs(binding.meters()).isNotEmpty();
        binding.close();
        assertThat(registry.getMeters()).isEmpty();
        assertThat(binding.meters()).extracting(Meter::getId).isNotEmpty();
    }

    @Test
    void aSecondJobOfTheSameNameIsRefusedUntilTheFirstBindingIsClosed() throws Exception {
        JobHandle first = boundedJob("twin");
        first.await(Duration.ofMinutes(2));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MeterBinding firstBinding = WeirMetrics.bind(first, registry);

        JobHandle second = boundedJob("twin");
        second.await(Duration.ofMinutes(2));
        assertThatThrownBy(() -> WeirMetrics.bind(second, registry))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'twin'")
                .hasMessageContaining("close that job's MeterBinding first")
                .hasMessageContaining("different names");
        assertThat(registry.getMeters()).hasSameSizeAs(firstBinding.meters());

        // A job of another name shares the registry.
        JobHandle other = boundedJob("other");
        other.await(Duration.ofMinutes(2));
        MeterBinding otherBinding = WeirMetrics.bind(other, registry);

        firstBinding.close();
        MeterBinding secondBinding = WeirMetrics.bind(second, registry);
        assertThat(registry.find("weir.job.restarts").tag("job", "twin").meters())
                .containsExactly(secondBinding.meters().get(0));
        firstBinding.close(); // again: must not remove the second job's meters
        assertThat(registry.getMeters())
                .hasSize(secondBinding.meters().size() + otherBinding.meters().size());
    }

    @Test
    void nullArgumentsAreNamed() throws Exception {
        JobHandle job = boundedJob("nulls");
        job.await(Duration.ofMinutes(2));
        assertThatThrownBy(() -> WeirMetrics.bind(null, new SimpleMeterRegistry()))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("job");
        assertThatThrownBy(() -> WeirMetrics.bind(job, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("registry");
        assertThatThrownBy(() -> WeirMetrics.prometheus(null, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("job");
    }
}
