package dev.weir.bench.nexmark;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceEnumerator;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceReader;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The Nexmark events as a Flink source (the FLIP-27 {@code Source} API, on Flink's iterator-source
 * building blocks, as {@code fromSequence} is): the same stripes as {@link NexmarkSource}, one
 * split per subtask, split {@code s} of {@code n} generating event numbers {@code s, s + n, ...}; a
 * split's checkpointed state is the next event number.
 */
public final class FlinkNexmarkSource
        implements Source<Event, FlinkNexmarkSource.Split, Collection<FlinkNexmarkSource.Split>> {
    private static final long serialVersionUID = 1L;
    private final NexmarkConfig config;
    private final int splits;

    /** The events of {@code config} in {@code splits} stripes (the source's parallelism). */
    public FlinkNexmarkSource(NexmarkConfig config, int splits) {
        this.config = config;
        this.splits = splits;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<Event, Split> createReader(SourceReaderContext context) {
        return new IteratorSourceReader<>(context);
    }

    @Override
    public SplitEnumerator<Split, Collection<Split>> createEnumerator(
            SplitEnumeratorContext<Split> context) {
        List<Split> all = new ArrayList<>(splits);
        for (int s = 0; s < splits; s++) {
            all.add(new Split(config, s, splits, s));
        }
        return new IteratorSourceEnumerator<>(context, all);
    }

    @Override
    public SplitEnumerator<Split, Collection<Split>> restoreEnumerator(
            SplitEnumeratorContext<Split> context, Collection<Split> checkpoint) {
        return new IteratorSourceEnumerator<>(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<Split> getSplitSerializer() {
        return new SplitSerializer(config);
    }

    @Override
    public SimpleVersionedSerializer<Collection<Split>> getEnumeratorCheckpointSerializer() {
        return new CheckpointSerializer(config);
    }

    /** One stripe of event numbers, from {@code next}. */
    public static final class Split implements IteratorSourceSplit<Event, Stripe> {
        private final NexmarkConfig config;
        private final int index;
        private final int stride;
        private final long next;

        Split(NexmarkConfig config, int index, int stride, long next) {
            this.config = config;
            this.index = index;
            this.stride = stride;
            this.next = next;
        }

        @Override
        public String splitId() {
            return "nexmark-" + index + "-of-" + stride;
        }

        @Override
        public Stripe getIterator() {
            return new Stripe(new NexmarkGenerator(config), next, stride);
        }

        @Override
        public IteratorSourceSplit<Event, Stripe> getUpdatedSplitForIterator(Stripe iterator) {
            return new Split(config, index, stride, iterator.next);
        }
    }

    /** Generates a stripe's events. */
    public static final class Stripe implements Iterator<Event> {
        private final NexmarkGenerator generator;
        private final long end;
        private final int stride;
        private long next;

        Stripe(NexmarkGenerator generator, long next, int stride) {
            this.generator = generator;
            this.end = generator.config().events();
            this.stride = stride;
            this.next = next;
        }

        @Override
        public boolean hasNext() {
            return next < end;
        }

        @Override
        public Event next() {
            if (next >= end) {
                throw new NoSuchElementException();
            }
            Event event = generator.event(next);
            next += stride;
            return event;
        }
    }

    private static final class SplitSerializer implements SimpleVersionedSerializer<Split> {
        private final NexmarkConfig config;

        SplitSerializer(NexmarkConfig config) {
            this.config = config;
        }

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Split split) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                write(split, out);
            }
            return bytes.toByteArray();
        }

        @Override
        public Split deserialize(int version, byte[] serialized) throws IOException {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                return read(config, in);
            }
        }
    }

    private static final class CheckpointSerializer
            implements SimpleVersionedSerializer<Collection<Split>> {
        private final NexmarkConfig config;

        CheckpointSerializer(NexmarkConfig config) {
            this.config = config;
        }

        @Override
        public int getVersion() {
            return 1;
        }

        @Override
        public byte[] serialize(Collection<Split> splits) throws IOException {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeInt(splits.size());
                for (Split split : splits) {
                    write(split, out);
                }
            }
            return bytes.toByteArray();
        }

        @Override
        public Collection<Split> deserialize(int version, byte[] serialized) throws IOException {
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
                int count = in.readInt();
                List<Split> splits = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    splits.add(read(config, in));
                }
                return splits;
            }
        }
    }

    private static void write(Split split, DataOutputStream out) throws IOException {
        out.writeInt(split.index);
        out.writeInt(split.stride);
        out.writeLong(split.next);
    }

    private static Split read(NexmarkConfig config, DataInputStream in) throws IOException {
        return new Split(config, in.readInt(), in.readInt(), in.readLong());
    }
}
