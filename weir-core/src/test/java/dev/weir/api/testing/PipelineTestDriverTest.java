package dev.weir.api.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.DataStream;
import dev.weir.api.codec.Codecs;
import dev.weir.api.function.Collector;
import dev.weir.api.window.WindowAssigner;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test harness for users' pipelines, used as a user would. */
class PipelineTestDriverTest {
    @TempDir Path checkpoints;

    record WordCount(String word, long count) {
        @Override
        public String toString() {
            return word + "=" + count;
        }
    }

    static DataStream<WordCount> words(DataStream<String> lines) {
        return lines.flatMap(
                (String line, Collector<WordCount> out) -> {
                    for (String word : line.split(" ")) {
                        out.collect(new WordCount(word, 1));
                    }
                });
    }

    static WordCount add(WordCount a, WordCount b) {
        return new WordCount(a.word(), a.count() + b.count());
    }

    /** Running counts per word: "b=2" is b's second occurrence. */
    static DataStream<String> wordCount(DataStream<String> lines) {
        return words(lines)
                .keyBy(WordCount::word)
                .reduce("count", PipelineTestDriverTest::add, Codecs.record(WordCount.class))
                .map(WordCount::toString);
    }

    /** {@link #wordCount(DataStream)} at parallelism 2, into a test output. */
    static TestOutput<String> wordCount(PipelineTestDriver driver, TestInput<String> lines) {
        driver.pipeline().parallelism(2);
        return driver.output("counts", wordCount(lines.stream()));
    }

    @Test
    void theReadmeExampleRunsAsWritten() {
        Path tempDir = checkpoints;
        // As in README.md, "Testing your pipeline":
        try (PipelineTestDriver driver = PipelineTestDriver.create("word-count", tempDir)) {
            TestInput<String> lines = driver.input("lines");
            TestOutput<String> counts = driver.output("counts", wordCount(lines.stream()));
            driver.start();
            lines.feed("a b", "b");
            driver.checkpoint();
            assertThat(counts.committed()).containsExactlyInAnyOrder("a=1", "b=1", "b=2");
            lines.feed("a");
            driver.injectFailure();
            driver.advanceProcessingTime(Duration.ofMinutes(1));
            driver.checkpoint();
            assertThat(counts.committed()).containsExactlyInAnyOrder("a=1", "b=1", "b=2", "a=2");
        }
    }

    @Test
    void wordCountFedInTwoRoundsCommitsEachRoundAtItsCheckpoint() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("word-count", checkpoints)) {
            TestInput<String> lines = driver.input("lines");
            TestOutput<String> counts = wordCount(driver, lines);
            driver.start();

            lines.feed("a b", "b c");
            driver.checkpoint();
            assertThat(counts.committed()).containsExactlyInAnyOrder("a=1", "b=1", "b=2", "c=1");

            lines.feed("a", "c c");
            assertThat(counts.committed())
                    .as("nothing of round two is visible before its checkpoint")
                    .hasSize(4);
            driver.checkpoint();
            assertThat(counts.committed())
                    .containsExactlyInAnyOrder("a=1", "b=1", "b=2", "c=1", "a=2", "c=2", "c=3");
            assertThat(counts.preparedTransactions()).isZero();
        }
    }

    @Test
    void aFailureBetweenCheckpointsNeitherLosesNorDuplicatesCommittedOutput() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("word-count", checkpoints)) {
            TestInput<String> lines = driver.input("lines");
            TestOutput<String> counts = wordCount(driver, lines);
            driver.start();

            lines.feed("a b");
            driver.checkpoint();
            lines.feed("a", "b b");
            driver.injectFailure(); // round two was read, so it sits in open transactions
            assertThat(driver.restarts()).isEqualTo(1);
            assertThat(counts.committed()).containsExactlyInAnyOrder("a=1", "b=1");

            lines.feed("a");
            driver.checkpoint();
            assertThat(counts.committed())
                    .as("round two replayed from the checkpoint, committed once")
                    .containsExactlyInAnyOrder("a=1", "b=1", "a=2", "b=2", "b=3", "a=3");
        }
    }

    @Test
    void aProcessingTimeWindowFiresWhenProcessingTimeIsAdvancedPastItsEnd() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("per-minute", checkpoints)) {
            TestInput<String> lines = driver.input("lines");
            DataStream<String> perMinute =
                    words(lines.stream())
                            .keyBy(WordCount::word)
                            .window(
                                    WindowAssigner.tumbling(Duration.ofMinutes(1))
                                            .inProcessingTime())
                            .reduce(
                                    "per-minute",
                                    PipelineTestDriverTest::add,
                                    Codecs.record(WordCount.class),
                                    (word, context, sums, out) ->
                                            out.collect(
                                                    context.window().start()
                                                            + " "
                                                            + sums.iterator().next()));
            TestOutput<String> out = driver.output("out", perMinute);
            driver.start();

            lines.feed("a a b");
            driver.advanceProcessingTime(Duration.ofSeconds(59));
            driver.checkpoint();
            assertThat(out.committed()).as("at 0:59 the first minute is still open").isEmpty();

            driver.advanceProcessingTime(Duration.ofSeconds(1));
            lines.feed("a"); // read at 1:00: the second minute
            driver.checkpoint();
            assertThat(out.committed()).containsExactlyInAnyOrder("0 a=2", "0 b=1");

            driver.advanceProcessingTime(Duration.ofMinutes(1));
            driver.checkpoint();
            assertThat(out.committed()).containsExactlyInAnyOrder("0 a=2", "0 b=1", "60000 a=1");
            assertThat(driver.processingTimeMillis()).isEqualTo(120_000);
        }
    }

    @Test
    void anEventTimeWindowFiresWhenTheWatermarkPassesItsEnd() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("per-minute", checkpoints)) {
            TestInput<String> lines = driver.input("lines", Duration.ofSeconds(5));
            DataStream<String> perMinute =
                    words(lines.stream())
                            .keyBy(WordCount::word)
                            .window(WindowAssigner.tumbling(Duration.ofMinutes(1)))
                            .reduce(
                                    "per-minute",
                                    PipelineTestDriverTest::add,
                                    Codecs.record(WordCount.class),
                                    (word, context, sums, out) ->
                                            out.collect(
                                                    context.window().start()
                                                            + " "
                                                            + sums.iterator().next()));
            TestOutput<String> out = driver.output("out", perMinute);
            driver.start();

            lines.feedAt(1_000, "a").feedAt(30_000, "a b").feedAt(62_000, "b");
            driver.checkpoint();
            assertThat(out.committed())
                    .as("the watermark 62 s - 5 s - 1 ms has not passed the first minute")
                    .isEmpty();

            lines.feedAt(58_000, "a"); // out of order, but within the 5 s bound
            lines.feedAt(65_000, "c");
            driver.checkpoint();
            assertThat(out.committed()).containsExactlyInAnyOrder("0 a=3", "0 b=1");

            lines.advanceWatermark(120_000);
            driver.checkpoint();
            assertThat(out.committed())
                    .containsExactlyInAnyOrder("0 a=3", "0 b=1", "60000 b=1", "60000 c=1");
        }
    }

    @Test
    void eventTimeWindowsSurviveAFailureWithTheirContentsCommittedOnce() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("per-minute", checkpoints)) {
            TestInput<String> lines = driver.input("lines");
            DataStream<String> perMinute =
                    words(lines.stream())
                            .keyBy(WordCount::word)
                            .window(WindowAssigner.tumbling(Duration.ofMinutes(1)))
                            .reduce(
                                    "per-minute",
                                    PipelineTestDriverTest::add,
                                    Codecs.record(WordCount.class))
                            .map(WordCount::toString);
            TestOutput<String> out = driver.output("out", perMinute);
            driver.start();

            lines.feedAt(1_000, "a b");
            driver.checkpoint();
            lines.feedAt(2_000, "a").advanceWatermark(60_000);
            driver.injectFailure();
            lines.feedAt(61_000, "a");
            driver.checkpoint();
            assertThat(out.committed()).containsExactlyInAnyOrder("a=2", "b=1");
        }
    }

    @Test
    void aStepThatThrowsFailsTheNextDriverCallWithItsException() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("parse", checkpoints)) {
            TestInput<String> numbers = driver.input("numbers");
            TestOutput<Integer> out = driver.output("out", numbers.stream().map(Integer::parseInt));
            driver.start();
            numbers.feed("1", "x", "2");

            assertThatThrownBy(driver::checkpoint)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the job failed")
                    .hasMessageContaining("For input string: \"x\"")
                    .hasRootCauseInstanceOf(NumberFormatException.class);
            assertThatThrownBy(out::committed)
                    .as("reading the output of a crashed job says so")
                    .hasRootCauseInstanceOf(NumberFormatException.class);
        }
    }

    @Test
    void aFailedJobIsReportedByFeedingAndReadingAndAtCloseIfNothingElseSaidSo() throws Exception {
        PipelineTestDriver driver = PipelineTestDriver.create("crashed", checkpoints);
        TestInput<String> numbers = driver.input("numbers");
        TestOutput<Integer> out = driver.output("out", numbers.stream().map(Integer::parseInt));
        driver.start();
        numbers.feed("x");
        try {
            driver.job().await(Duration.ofMinutes(1)); // gives up after its restarts
        } catch (dev.weir.api.JobFailedException expected) {
            // as it should
        }
        assertThatThrownBy(() -> numbers.feed("1"))
                .hasMessageContaining("the job failed")
                .hasRootCauseInstanceOf(NumberFormatException.class);
        assertThatThrownBy(out::committed).hasRootCauseInstanceOf(NumberFormatException.class);
        driver.close(); // reported already: close does not throw it again

        PipelineTestDriver silent = PipelineTestDriver.create("silent", checkpoints.resolve("s"));
        TestInput<String> more = silent.input("numbers");
        silent.output("out", more.stream().map(Integer::parseInt));
        silent.start();
        more.feed("y");
        try {
            silent.job().await(Duration.ofMinutes(1));
        } catch (dev.weir.api.JobFailedException expected) {
            // the job gave up; the test below has not looked
        }
        assertThatThrownBy(silent::close)
                .hasMessageContaining("at close")
                .hasRootCauseInstanceOf(NumberFormatException.class);
    }

    @Test
    void anOutputOnAStreamOfAnotherPipelineIsRefusedAtOnce() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("foreign", checkpoints)) {
            driver.input("lines");
            DataStream<Long> foreign =
                    dev.weir.api.Pipeline.create("other")
                            .source("s", dev.weir.api.source.Sources.sequence(1, 3));
            assertThatThrownBy(() -> driver.output("o", foreign))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("belongs to another pipeline");
        }
    }

    @Test
    void aClosedDriverAndASecondStartAreRefused() {
        PipelineTestDriver driver = PipelineTestDriver.create("closed", checkpoints);
        TestInput<String> lines = driver.input("lines");
        wordCount(driver, lines);
        driver.start();
        assertThatThrownBy(driver::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("start() was called already");
        driver.close();
        assertThatThrownBy(() -> lines.feed("late"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(driver::checkpoint)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the driver is closed");
        driver.close(); // idempotent
    }

    @Test
    void aJobThatMayNotRestartFailsTheTestWithTheRootCause() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("no-restart", checkpoints)) {
            driver.pipeline().restartStrategy(dev.weir.api.RestartStrategy.none());
            TestInput<String> lines = driver.input("lines");
            wordCount(driver, lines);
            driver.start();
            lines.feed("a");

            assertThatThrownBy(driver::injectFailure)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the job failed")
                    .hasMessageContaining("failure injected by PipelineTestDriver.injectFailure()");
            assertThatThrownBy(driver::checkpoint).hasMessageContaining("the job failed");
        }
    }

    @Test
    void theDriverIsBuiltBeforeItStarts() {
        try (PipelineTestDriver driver = PipelineTestDriver.create("order", checkpoints)) {
            assertThatThrownBy(driver::checkpoint).hasMessageContaining("call start() first");
            assertThatThrownBy(driver::start).hasMessageContaining("driver.input(name)");
            TestInput<String> lines = driver.input("lines");
            driver.output("out", lines.stream());
            driver.start();
            assertThatThrownBy(() -> driver.input("more"))
                    .hasMessageContaining("must come before start()");
        }
    }
}
