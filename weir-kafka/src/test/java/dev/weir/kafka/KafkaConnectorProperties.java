package dev.weir.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.kafka.ReaderState.Partition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Properties of the connector's pure parts: which split owns a partition, split ids, and the bytes
 * of reader states and committables that checkpoints keep.
 */
class KafkaConnectorProperties {
    @Provide
    Arbitrary<String> topics() {
        return Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars('-', '.', '_')
                .ofMinLength(1)
                .ofMaxLength(40);
    }

    @Property
    void everyPartitionHasExactlyOneOwnerAmongTheSplits(
            @ForAll("topics") String topic,
            @ForAll @IntRange(min = 0, max = 1_000_000) int partition,
            @ForAll @IntRange(min = 1, max = 10_000) int splits) {
        int owner = SplitAssignment.owner(topic, partition, splits);
        assertThat(owner).isBetween(0, splits - 1);
        assertThat(SplitAssignment.owner(topic, partition, splits))
                .as("the same in every run and subtask")
                .isEqualTo(owner);
    }

    @Property
    void aTopicsPartitionsSpreadOverTheSplitsWithCountsDifferingByAtMostOne(
            @ForAll("topics") String topic,
            @ForAll @IntRange(min = 1, max = 500) int partitions,
            @ForAll @IntRange(min = 1, max = 64) int splits) {
        int[] counts = new int[splits];
        for (int p = 0; p < partitions; p++) {
            counts[SplitAssignment.owner(topic, p, splits)]++;
        }
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (int count : counts) {
            min = Math.min(min, count);
            max = Math.max(max, count);
        }
        assertThat(max - min).isLessThanOrEqualTo(1);
    }

    @Property
    void splitIdsNameTheirIndexAndCount(
            @ForAll @IntRange(min = 1, max = 10_000) int count,
            @ForAll @IntRange(min = 0, max = 9_999) int index) {
        int i = index % count;
        assertThat(SplitAssignment.parse(SplitAssignment.splitId(i, count)))
                .containsExactly(i, count);
    }

    @Property
    void splitIdsOfOtherSourcesAreRefused(@ForAll("topics") String id) {
        assertThatThrownBy(() -> SplitAssignment.parse(id))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Provide
    Arbitrary<ReaderState.Partition> partitionStates() {
        Arbitrary<Long> next = Arbitraries.longs().between(0, Long.MAX_VALUE / 2);
        Arbitrary<Long> stop =
                Arbitraries.oneOf(
                        Arbitraries.just(ReaderState.UNBOUNDED),
                        Arbitraries.longs().between(0, Long.MAX_VALUE));
        return Combinators.combine(
                        Arbitraries.strings().ofMinLength(1).ofMaxLength(249),
                        Arbitraries.integers().between(0, Integer.MAX_VALUE),
                        next,
                        stop)
                .as(ReaderState.Partition::new);
    }

    @Property
    void readerStatesRoundTripThroughTheirBytes(
            @ForAll boolean resolved,
            @ForAll @Size(max = 50) List<@From("partitionStates") Partition> partitions)
            throws IOException {
        ReaderState state = new ReaderState(resolved, partitions);
        assertThat(ReaderState.fromBytes(state.toBytes())).isEqualTo(state);
    }

    @Property
    void aReaderStateWithBytesMissingOrAddedIsRefused(
            @ForAll @Size(min = 1, max = 5) List<@From("partitionStates") Partition> partitions,
            @ForAll @IntRange(min = 1, max = 8) int cut) {
        byte[] bytes = new ReaderState(true, partitions).toBytes();
        byte[] shorter = java.util.Arrays.copyOf(bytes, Math.max(0, bytes.length - cut));
        byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + cut);
        assertThatThrownBy(() -> ReaderState.fromBytes(shorter)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> ReaderState.fromBytes(longer)).isInstanceOf(IOException.class);
    }

    @Provide
    Arbitrary<KafkaCommittable> committables() {
        return Combinators.combine(
                        Arbitraries.strings().ofMinLength(1).ofMaxLength(300),
                        topics(),
                        Arbitraries.longs().between(0, Long.MAX_VALUE),
                        Arbitraries.shorts().between((short) 0, Short.MAX_VALUE),
                        Arbitraries.integers().between(0, 100_000),
                        Arbitraries.longs(),
                        Arbitraries.longs(),
                        Arbitraries.longs().between(1, Long.MAX_VALUE))
                .as(KafkaCommittable::new);
    }

    @Property
    void committablesRoundTripThroughTheirCodec(@ForAll("committables") KafkaCommittable c) {
        KafkaCommittable.CommittableCodec codec = new KafkaCommittable.CommittableCodec();
        assertThat(codec.fromBytes(codec.toBytes(c))).isEqualTo(c);
    }

    @Property
    void aTransactionalIdBelongsToItsSubtaskUnderItsPrefixOnly(
            @ForAll("topics") String prefix,
            @ForAll @IntRange(min = 0, max = 100_000) int subtask,
            @ForAll @IntRange(min = 0, max = 31) int slot) {
        String id = KafkaTransactions.transactionalId(prefix, subtask, slot);
        assertThat(KafkaTransactions.subtaskOf(prefix, id)).isEqualTo(subtask);
        List<String> others = new ArrayList<>(List.of(prefix + "x", prefix + ":1"));
        for (String other : others) {
            assertThat(KafkaTransactions.subtaskOf(other, id)).as("under " + other).isEqualTo(-1);
        }
    }

    /**
     * The codec deserializer reads back what the codec serializer wrote, and refuses a value with
     * bytes left over (another writer's format) instead of passing on what it read of it.
     */
    @Property
    void theCodecDeserializerReadsWholeValuesOnly(
            @ForAll String text, @ForAll @Size(min = 1, max = 8) byte[] extra) throws Exception {
        byte[] value = dev.weir.api.codec.Codecs.STRING.toBytes(text);
        KafkaDeserializer<String> strings =
                KafkaDeserializer.codec(dev.weir.api.codec.Codecs.STRING);
        assertThat(strings.deserialize(record(value))).isEqualTo(text);

        byte[] longer = java.util.Arrays.copyOf(value, value.length + extra.length);
        System.arraycopy(extra, 0, longer, value.length, extra.length);
        assertThatThrownBy(() -> strings.deserialize(record(longer)))
                .isInstanceOf(dev.weir.api.UnrecoverableException.class)
                .hasMessageContaining("t-3 at offset 42")
                .hasMessageContaining("the codec left " + extra.length + " bytes unread");
        // Too short: named too, not a bare EOFException.
        byte[] shorter = java.util.Arrays.copyOf(value, value.length - 1);
        assertThatThrownBy(() -> strings.deserialize(record(shorter)))
                .isInstanceOf(dev.weir.api.UnrecoverableException.class)
                .hasMessageContaining("t-3 at offset 42")
                .hasMessageContaining("weir.string");
        // A codec of the user's may skip what a newer writer appended.
        assertThat(KafkaDeserializer.codec(new SkipsTheRest()).deserialize(record(longer)))
                .isEqualTo(longer[0] & 0xff);
    }

    /** A user's codec that reads the first byte and leaves the rest unread. */
    static final class SkipsTheRest implements dev.weir.api.codec.Codec<Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public void encode(Integer value, java.io.DataOutput out) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Integer decode(java.io.DataInput in) throws IOException {
            return in.readUnsignedByte();
        }
    }

    private static org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> record(
            byte[] value) {
        return new org.apache.kafka.clients.consumer.ConsumerRecord<>("t", 3, 42, null, value);
    }
}
