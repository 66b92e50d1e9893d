package dev.weir.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard of a running job in a real headless chromium (Debian's; the test fails, telling how
 * to install it, when it is missing): the DOM after the page polled the job, and a screenshot.
 */
class DashboardBrowserTest {
    @TempDir static Path dir;
    private static RunningJob running;

    @BeforeAll
    static void startJob() throws Exception {
        Chromium.binary(); // fail first, and clearly, without a browser
        running = new RunningJob(dir.resolve("checkpoints"));
        running.awaitRestartAndCheckpoints();
    }

    @AfterAll
    static void stopJob() throws Exception {
        if (running != null) {
            running.close();
        }
    }

    private static String dumpDom(String name) throws Exception {
        return Chromium.run(
                Files.createDirectories(dir.resolve("profile-" + name)),
                running.dashboard.uri().toString(),
                "--dump-dom");
    }

    @Test
    void thePageShowsTheGraphCheckpointsRestartWithItsCauseAndTheWeakestLink() throws Exception {
        String dom = dumpDom("dom");

        assertThat(dom).contains("data-polls=");
        for (String step : new String[] {"numbers", "scaled", "sum", "out"}) {
            assertThat(dom).as("graph node of " + step).contains("data-step=\"" + step + "\"");
            assertThat(dom).containsPattern("<g class=\"node [a-z]+\" data-step=\"" + step + "\"");
        }
        // The channel edges (numbers/scaled chain → sum) are coloured by fill; out is chained.
        Matcher fill =
                Pattern.compile("class=\"edge channel\"[^>]*data-fill=\"([01]\\.[0-9]{3})\"")
                        .matcher(dom);
        assertThat(fill.find()).as("a channel edge with its fill").isTrue();
        // "sum" is slower than what reaches it: the edge into it shows backpressure.
        assertThat(Double.parseDouble(fill.group(1))).isGreaterThanOrEqualTo(0.5);
        assertThat(dom).contains("class=\"edge chained\"");
        assertThat(dom).contains("class=\"checkpoint-row\"");
        assertThat(dom).contains("class=\"restart\"");
        assertThat(dom)
                .contains(
                        "java.lang.IllegalStateException: injected failure at record "
                                + RunningJob.FAILING_RECORD
                                + " (&lt;b&gt;markup shown as text&lt;/b&gt;)");
        assertThat(dom).as("the cause is text, not markup").doesNotContain("<b>markup");
        assertThat(dom).contains("at-least-once end to end");
        assertThat(dom).contains("weakest link: sink 'out' (");
        assertThat(dom).contains("<polyline points=");
    }

    @Test
    void firstPaintIsUnderOneSecond() throws Exception {
        String dom = dumpDom("paint");

        Matcher paint = Pattern.compile("data-first-paint-ms=\"([0-9.]+)\"").matcher(dom);
        assertThat(paint.find()).as("the page recorded its first paint").isTrue();
        double millis = Double.parseDouble(paint.group(1));
        System.out.println("dashboard first paint: " + millis + " ms");
        assertThat(millis).isLessThan(1_000);
    }

    @Test
    void aScreenshotOfTheRunningJobIsAPng() throws Exception {
        Path png = dir.resolve("dashboard.png");
        Chromium.run(
                Files.createDirectories(dir.resolve("profile-shot")),
                running.dashboard.uri().toString(),
                "--screenshot=" + png,
                "--hide-scrollbars");

        byte[] bytes = Files.readAllBytes(png);
        assertThat(bytes).startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
        assertThat(bytes.length).isGreaterThan(10_000);
        String keep = System.getProperty("weir.dashboard.screenshot");
        if (keep != null) {
            Files.copy(png, Path.of(keep), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
