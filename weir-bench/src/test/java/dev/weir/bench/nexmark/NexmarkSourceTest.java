package dev.weir.bench.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.SourceReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Weir source stripes event numbers over its splits and replays from a position. */
class NexmarkSourceTest {
    private static final NexmarkConfig CONFIG = NexmarkConfig.defaults(10_000, 5);
    private final NexmarkSource source = new NexmarkSource(CONFIG);

    @Test
    void twoSplitsTogetherGenerateEveryEventOnceSplitOneTheOddNumbers() throws Exception {
        List<String> splits = source.splits(2);
        List<Event> all = new ArrayList<>();
        for (String split : splits) {
            all.addAll(readToEnd(source.openReader(split, null)));
        }
        NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
        List<Event> expected = new ArrayList<>();
        for (long n = 0; n < CONFIG.events(); n += 2) {
            expected.add(generator.event(n));
        }
        for (long n = 1; n < CONFIG.events(); n += 2) {
            expected.add(generator.event(n));
        }
        assertThat(all).isEqualTo(expected);
    }

    @Test
    void aReaderSeekingToAnotherReadersPositionContinuesWithTheSameEvents() throws Exception {
        String split = source.splits(2).get(1);
        SourceReader<Event> first = source.openReader(split, null);
        List<Event> head = new ArrayList<>();
        first.poll(head::add, 1_234);
        long position = first.position();
        assertThat(position).isEqualTo(1 + 1_234 * 2);
        List<Event> rest = readToEnd(first);

        SourceReader<Event> restored = source.openReader(split, null);
        restored.seek(position);
        assertThat(readToEnd(restored)).isEqualTo(rest);
        assertThatThrownBy(() -> restored.seek(2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no event number 2");
    }

    private static List<Event> readToEnd(SourceReader<Event> reader) throws Exception {
        List<Event> events = new ArrayList<>();
        while (reader.poll(events::add, 1_000) != ReadStatus.END_OF_INPUT) {
            assertThat((long) events.size()).isLessThanOrEqualTo(CONFIG.events());
        }
        return events;
    }
}
