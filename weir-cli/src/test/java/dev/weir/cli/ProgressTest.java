package dev.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Rendering of progress: pure functions of the figures, and when a reporter shows them. */
class ProgressTest {
    static final long SECOND = 1_000_000_000L;

    @Test
    void aBarShowsFillPercentCountRateAndEta() {
        Progress progress = new Progress("verify", 17, 34, 17 * SECOND, "runs", "");
        assertThat(progress.bar())
                .isEqualTo(
                        "verify [============>           ]  50% 17/34 runs  1.0 runs/s  ETA 0:17");
    }

    @Test
    void aPlainLineSaysTheSameInWords() {
        Progress progress = new Progress("verify", 17, 34, 17 * SECOND, "runs", "");
        assertThat(progress.line())
                .isEqualTo("verify: 17/34 runs (50%), 1.0 runs/s, elapsed 0:17, ETA 0:17");
    }

    @Test
    void bytesAreShownInBinaryUnitsWithTheDetailAfterThem() {
        Progress progress =
                new Progress("append", 3 << 20, 12 << 20, 2 * SECOND, "bytes", "25,000 records");
        assertThat(progress.bar())
                .isEqualTo(
                        "append [======>                 ]  25% 3.0 MiB/12.0 MiB  1.5 MiB/s  ETA 0:06"
                                + "  25,000 records");
        assertThat(progress.line())
                .isEqualTo(
                        "append: 3.0 MiB/12.0 MiB (25%), 1.5 MiB/s, elapsed 0:02, ETA 0:06,"
                                + " 25,000 records");
    }

    @Test
    void withoutATotalThereIsNoBarNorEtaButTheElapsedTime() {
        Progress progress = new Progress("append", 1_234_567, -1, 65 * SECOND, "records", "");
        assertThat(progress.bar()).isEqualTo("append 1,234,567 records  18,993 records/s  1:05");
        assertThat(progress.line())
                .isEqualTo("append: 1,234,567 records, 18,993 records/s, elapsed 1:05");
    }

    @Test
    void theEtaIsUnknownBeforeAnythingIsDoneAndZeroWhenAllIs() {
        assertThat(new Progress("v", 0, 10, 0, "runs", "").bar())
                .isEqualTo("v [>                       ]   0% 0/10 runs  -- runs/s  ETA --:--");
        assertThat(new Progress("v", 10, 10, 3_600 * SECOND, "runs", "").bar())
                .isEqualTo("v [========================] 100% 10/10 runs  0.0 runs/s  ETA 0:00");
    }

    @Test
    void longDurationsShowHours() {
        assertThat(Progress.clock(3_725)).isEqualTo("1:02:05");
        assertThat(Progress.clock(59)).isEqualTo("0:59");
    }

    @Test
    void negativeFiguresAreRefused() {
        assertThatThrownBy(() -> new Progress("v", -1, 10, 0, "runs", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("done=-1");
    }

    @Test
    void linesComeEveryTenSecondsAndNotAtAllForAShortCommand() {
        long[] now = {0};
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ProgressReporter shortOne = reporter(err, ProgressReporter.Mode.LINES, now, "records");
        shortOne.update(5, "");
        now[0] = 9 * SECOND;
        shortOne.update(9, "");
        shortOne.finish();
        assertThat(err.toString(StandardCharsets.UTF_8)).as("a command under 10 s").isEmpty();

        ProgressReporter longOne = reporter(err, ProgressReporter.Mode.LINES, now, "records");
        now[0] += 10 * SECOND;
        longOne.update(100, "");
        now[0] += 1 * SECOND;
        longOne.update(110, "");
        now[0] += 1 * SECOND;
        longOne.finish();
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo(
                        "append: 100 records, 10.0 records/s, elapsed 0:10\n"
                                + "append: 110 records, 9.2 records/s, elapsed 0:12\n");
    }

    @Test
    void aBarIsRedrawnInPlaceAndOtherOutputGoesAroundIt() {
        long[] now = {0};
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ProgressReporter bar = reporter(err, ProgressReporter.Mode.BAR, now, "records");
        bar.update(1, "");
        now[0] = 1 * SECOND;
        bar.update(20, "");
        PrintStream out = bar.around(new PrintStream(err, true, StandardCharsets.UTF_8));
        out.println("round 1");
        bar.finish();
        String first = "append 1 records  -- records/s  0:00";
        String second = "append 20 records  20.0 records/s  0:01";
        String clear = "\r" + " ".repeat(second.length()) + "\r";
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo(
                        "\r" + first + "\r" + second + clear + "round 1\n" + "\r" + second + clear);
    }

    private static ProgressReporter reporter(
            ByteArrayOutputStream err, ProgressReporter.Mode mode, long[] now, String unit) {
        return new ProgressReporter(
                "append",
                -1,
                unit,
                new PrintStream(err, true, StandardCharsets.UTF_8),
                mode,
                () -> now[0]);
    }
}
