package dev.weir.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.examples.WindowedLogCounts.PageView;
import dev.weir.examples.WindowedLogCounts.WindowCount;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The counts WindowedLogCounts commits to its output topic are those of its input, once each. */
class WindowedLogCountsTest {
    @TempDir Path dir;

    @Test
    void countsPerWindowInTheOutputTopicMatchTheInput() throws Exception {
        Path log = dir.resolve("log");
        List<PageView> views = WindowedLogCounts.writeSampleViews(log, 3, 20_000, 8);
        WindowedLogCounts.createCountsTopic(log, 2);

        WindowedLogCounts.pipeline(log, dir.resolve("chk")).run();

        long window = WindowedLogCounts.WINDOW.toMillis();
        Map<String, Long> expected = new HashMap<>();
        for (PageView view : views) {
            long start = view.timeMillis() - Math.floorMod(view.timeMillis(), window);
            expected.merge(view.page() + "@" + start, 1L, Long::sum);
        }
        List<WindowCount> committed = WindowedLogCounts.readCounts(log);
        Map<String, Long> actual = new HashMap<>();
        for (WindowCount count : committed) {
            actual.merge(count.page() + "@" + count.windowStart(), count.count(), Long::sum);
        }
        // One record per page and window (none twice), each with the window's count.
        assertThat(committed).hasSize(expected.size());
        assertThat(actual).isEqualTo(expected);
    }
}
