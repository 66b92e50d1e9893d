package dev.weir.bench.nexmark;

import dev.weir.api.function.Collector;
import dev.weir.api.source.ReadStatus;
import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.api.source.SourceReader;
import java.util.ArrayList;
import java.util.List;

/**
 * The Nexmark events as a Weir source: one split per source subtask, split {@code s} of {@code n}
 * generating event numbers {@code s, s + n, s + 2n, ...}. Replayable: a split's position is the
 * number of the next event it generates, and every event is a function of its number.
 */
public final class NexmarkSource implements Source<Event> {
    private static final long serialVersionUID = 1L;
    private final NexmarkConfig config;

    /** The events of {@code config}. */
    public NexmarkSource(NexmarkConfig config) {
        this.config = config;
    }

    @Override
    public String kind() {
        return "nexmark";
    }

    @Override
    public boolean isReplayable() {
        return true;
    }

    @Override
    public List<String> splits(int parallelism) {
        List<String> splits = new ArrayList<>(parallelism);
        for (int s = 0; s < parallelism; s++) {
            splits.add("nexmark-" + s + "-of-" + parallelism);
        }
        return splits;
    }

    @Override
    public SourceReader<Event> openReader(String split, SourceContext context) {
        String[] parts = split.split("-");
        return new Reader(
                new NexmarkGenerator(config),
                Integer.parseInt(parts[1]),
                Integer.parseInt(parts[3]));
    }

    /** Generates one stripe of event numbers. */
    private static final class Reader implements SourceReader<Event> {
        private final NexmarkGenerator generator;
        private final long first;
        private final long stride;
        private final long end;
        private long next;

        Reader(NexmarkGenerator generator, long first, long stride) {
            this.generator = generator;
            this.first = first;
            this.stride = stride;
            this.end = generator.config().events();
            this.next = first;
        }

        @Override
        public ReadStatus poll(Collector<Event> out, int maxRecords) {
            for (int i = 0; i < maxRecords && next < end; i++) {
                out.collect(generator.event(next));
                next += stride;
            }
            return next >= end ? ReadStatus.END_OF_INPUT : ReadStatus.MORE_AVAILABLE;
        }

        @Override
        public long position() {
            return next;
        }

        @Override
        public void seek(long position) {
            if (position < first || (position - first) % stride != 0) {
                throw new IllegalArgumentException(
                        "nexmark split starting at "
                                + first
                                + " with stride "
                                + stride
                                + " has no event number "
                                + position
                                + "; restore at the parallelism of the checkpoint");
            }
            next = position;
        }
    }
}
