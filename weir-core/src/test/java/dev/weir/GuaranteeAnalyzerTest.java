package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.Guarantee;
import dev.weir.api.GuaranteeReport;
import dev.weir.api.Pipeline;
import dev.weir.api.RestartStrategy;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.checkpoint.CheckpointingMode;
import dev.weir.api.codec.Codec;
import dev.weir.api.codec.Codecs;
import dev.weir.api.sink.FileSink;
import dev.weir.api.sink.Sink;
import dev.weir.api.sink.SinkContext;
import dev.weir.api.sink.Sinks;
import dev.weir.api.sink.TransactionalWriter;
import dev.weir.api.sink.TwoPhaseCommitSink;
import dev.weir.api.source.Source;
import dev.weir.api.source.Sources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The weakest-link verdict for every combination of built-in source, mode and sink. */
class GuaranteeAnalyzerTest {
    @TempDir Path dir;

    static Guarantee expected(Guarantee source, CheckpointingMode mode, Guarantee sink) {
        return source.min(mode.guarantee()).min(sink);
    }

    @Test
    void theVerdictIsTheMinimumOfSourceModeAndSinkForEveryCombination() {
        Map<String, Source<?>> sourceByName =
                Map.of(
                        "sequence", Sources.sequence(1, 3),
                        "collection", Sources.collection(List.of("a")),
                        "log", Sources.log(dir.resolve("log"), "t", Codecs.STRING),
                        "files", Sources.files(dir.resolve("files")),
                        "socket", Sources.socket("127.0.0.1", 1));
        Map<String, Sink<Object>> sinkByName =
                Map.of(
                        "file", FileSink.to(dir.resolve("out")),
                        "console", Sinks.console(),
                        "collect", Sinks.collect(),
                        "counting", Sinks.counting(),
                        "callback", Sinks.callback(record -> {}));
        int checked = 0;
        for (var source : sourceByName.entrySet()) {
            for (CheckpointingMode mode : CheckpointingMode.values()) {
                for (var sink : sinkByName.entrySet()) {
                    Pipeline pipeline =
                            Pipeline.create("analyzed")
                                    .checkpointing(
                                            mode == CheckpointingMode.NONE
                                                    ? CheckpointConfig.none()
                                                    : CheckpointConfig.exactlyOnce(
                                                                    Duration.ofSeconds(1), dir)
                                                            .withMode(mode));
                    @SuppressWarnings("unchecked")
                    Source<Object> s = (Source<Object>) source.getValue();
                    pipeline.source("in", s).sink("out", sink.getValue());

                    GuaranteeReport report = pipeline.guarantee();

                    Guarantee want =
                            expected(
                                    source.getValue().guarantee(),
                                    mode,
                                    sink.getValue().guarantee());
                    assertThat(report.guarantee())
                            .as("%s x %s x %s", source.getKey(), mode, sink.getKey())
                            .isEqualTo(want);
                    if (want == Guarantee.EXACTLY_ONCE) {
                        assertThat(report.limitedBy()).isNull();
                        assertThat(report.describe())
                                .isEqualTo("end-to-end guarantee: EXACTLY_ONCE");
                    } else {
                        assertThat(report.limitedBy().guarantee()).isEqualTo(want);
                        assertThat(report.describe()).contains("limited by").contains("use ");
                    }
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(5 * 3 * 5);
    }

    @Test
    void theConsoleSinkVerdictNamesItAndTheFix() {
        Pipeline pipeline =
                Pipeline.create("console")
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir));
        pipeline.source("numbers", Sources.sequence(1, 3)).sink("console", Sinks.console());
        assertThat(pipeline.guarantee().describe())
                .isEqualTo(
                        "end-to-end guarantee: AT_LEAST_ONCE (limited by sink 'console' (console):"
                                + " not transactional or idempotent; use FileSink or a two-phase-commit"
                                + " sink)");
    }

    @Test
    void requireGuaranteeRefusesToStartNamingTheLimitingComponent() {
        Pipeline pipeline =
                Pipeline.create("strict")
                        .checkpointing(CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir))
                        .requireGuarantee(Guarantee.EXACTLY_ONCE);
        pipeline.source("lines", Sources.socket("127.0.0.1", 1))
                .sink("out", FileSink.to(dir.resolve("o")));
        assertThatThrownBy(pipeline::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("requires EXACTLY_ONCE")
                .hasMessageContaining("AT_MOST_ONCE (limited by source 'lines' (socket)")
                .hasMessageContaining("use a replayable source");
    }

    /** A two-phase-commit sink whose external system aborts transactions after 30 s. */
    static final class ShortTimeoutSink implements TwoPhaseCommitSink<Object, String> {
        @Override
        public String kind() {
            return "short";
        }

        @Override
        public Codec<String> committableCodec() {
            return Codecs.STRING;
        }

        @Override
        public Duration transactionTimeout() {
            return Duration.ofSeconds(30);
        }

        @Override
        public TransactionalWriter<Object, String> createTransactionalWriter(SinkContext context) {
            throw new AssertionError("never started");
        }
    }

    @Test
    void aTransactionTimeoutShorterThanCheckpointTimeoutPlusRestartDelayIsRefused() {
        Pipeline pipeline =
                Pipeline.create("timeouts")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofSeconds(1), dir)
                                        .withTimeout(Duration.ofSeconds(25)))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ofSeconds(10)));
        pipeline.source("numbers", Sources.sequence(1, 3)).sink("tx", new ShortTimeoutSink());
        assertThatThrownBy(pipeline::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sink 'tx' has a transaction timeout of PT30S")
                .hasMessageContaining("checkpoint timeout PT25S")
                .hasMessageContaining("restart delay PT10S")
                .hasMessageContaining("Raise the sink's transaction timeout");
    }

    @Test
    void theCheckpointIntervalCountsTowardsTheTransactionTimeout() {
        // 6 s interval + 20 s timeout + 5 s delay = 31 s: a 30 s transaction could be aborted.
        Pipeline pipeline =
                Pipeline.create("timeouts")
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofSeconds(6), dir)
                                        .withTimeout(Duration.ofSeconds(20)))
                        .restartStrategy(RestartStrategy.fixedDelay(3, Duration.ofSeconds(5)));
        pipeline.source("numbers", Sources.sequence(1, 3)).sink("tx", new ShortTimeoutSink());
        assertThatThrownBy(pipeline::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("checkpoint interval PT6S")
                .hasMessageContaining("= PT31S");
    }
}
