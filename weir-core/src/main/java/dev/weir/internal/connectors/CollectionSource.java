package dev.weir.internal.connectors;

import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.util.List;

/** The elements of a list, in order, as one split; replayable by index. */
public final class CollectionSource<T> implements Source<T> {
    private final List<T> elements;

    public CollectionSource(List<T> elements) {
        this.elements = List.copyOf(elements);
    }

    @Override
    public String kind() {
        return "collection";
    }

    @Override
    public boolean isReplayable() {
        return true;
    }

    @Override
    public List<String> splits(int parallelism) {
        return List.of("collection");
    }

    @Override
    public SourceReader<T> openReader(String split, SourceContext context) {
        return new SourceReader<>() {
            private int index;

            @Override
            public ReadStatus poll(Collector<T> out, int maxRecords) {
                int end = Math.min(elements.size(), index + maxRecords);
                while (index < end) {
                    out.collect(elements.get(index++));
                }
                return index >= elements.size()
                        ? ReadStatus.END_OF_INPUT
                        : ReadStatus.MORE_AVAILABLE;
            }

            @Override
            public long position() {
                return index;
            }

            @Override
            public void seek(long position) {
                if (position > elements.size()) {
                    throw new IllegalArgumentException(
                            "offset "
                                    + position
                                    + " is past the end of a collection of "
                                    + elements.size());
                }
                index = (int) position;
            }

            @Override
            public long lag() {
                return elements.size() - index;
            }
        };
    }
}
