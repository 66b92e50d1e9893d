package dev.weir.kafka;

import dev.weir.api.codec.Codec;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Turns a Kafka record into the element a {@link KafkaSource} emits.
 *
 * <p>Called on the source task's thread for each record read, in offset order per partition. It
 * sees the whole record (key, value, headers, partition, offset, timestamp). Returning null skips
 * the record, as the built-ins do for tombstones (null values); an exception fails the task, and
 * the restart reads the same record again, so a record that can never be read fails the job through
 * its restart strategy rather than being skipped silently; throw {@code
 * dev.weir.api.UnrecoverableException} to fail it at once, as {@link #codec} does.
 *
 * @param <T> element type
 */
@FunctionalInterface
public interface KafkaDeserializer<T> extends Serializable {
    /**
     * The element for {@code record}, or null to skip it.
     *
     * @param record the record as read: key and value bytes (either may be null), headers,
     *     partition, offset and timestamp
     * @return the element to emit, or null to skip the record
     * @throws Exception if the record cannot be read; this fails the task
     */
    T deserialize(ConsumerRecord<byte[], byte[]> record) throws Exception;

    /**
     * The value's bytes as they are; tombstones skipped.
     *
     * @return the deserializer
     */
    static KafkaDeserializer<byte[]> bytes() {
        return ConsumerRecord::value;
    }

    /**
     * The value as UTF-8 text; tombstones skipped.
     *
     * @return the deserializer
     */
    static KafkaDeserializer<String> strings() {
        return record ->
                record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
    }

    /**
     * The value decoded with {@code codec} (as a {@link KafkaSerializer#codec} wrote it);
     * tombstones skipped. A value the codec cannot read, or, for Weir's own codecs ({@code
     * Codecs.*}, which read exactly what they wrote), does not read to its end, was written by
     * something else: it fails the job at once ({@code UnrecoverableException}, as a restart would
     * read it again) naming topic, partition and offset, rather than passing on a wrong element. A
     * codec of your own may leave bytes unread on purpose (fields a newer writer appended).
     *
     * @param <T> element type
     * @param codec the codec that encoded the values
     * @return the deserializer
     */
    static <T> KafkaDeserializer<T> codec(Codec<T> codec) {
        boolean wholeValues = codec.id().startsWith("weir.");
        return record -> {
            byte[] value = record.value();
            if (value == null) {
                return null;
            }
            java.io.ByteArrayInputStream bytes = new java.io.ByteArrayInputStream(value);
            T element;
            try {
                element = codec.decode(new java.io.DataInputStream(bytes));
            } catch (java.io.IOException | RuntimeException e) {
                throw unreadable(record, codec, e.toString(), e);
            }
            if (wholeValues && bytes.available() != 0) {
                throw unreadable(
                        record,
                        codec,
                        "the codec left " + bytes.available() + " bytes unread",
                        null);
            }
            return element;
        };
    }

    private static dev.weir.api.UnrecoverableException unreadable(
            ConsumerRecord<byte[], byte[]> record, Codec<?> codec, String why, Exception cause) {
        return new dev.weir.api.UnrecoverableException(
                "the value of "
                        + record.topic()
                        + "-"
                        + record.partition()
                        + " at offset "
                        + record.offset()
                        + " ("
                        + record.value().length
                        + " bytes) cannot be decoded with "
                        + codec.id()
                        + " ("
                        + why
                        + "). Was it written with another codec? Read a topic with the codec its"
                        + " writer used",
                cause);
    }
}
