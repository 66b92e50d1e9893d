package dev.weir.kafka;

import dev.weir.api.codec.Codec;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns an element into the Kafka record a {@link KafkaSink} sends: topic, key, value, headers and,
 * if it wants, the partition.
 *
 * <p>Called on the sink task's thread for each element. A record with a key and no partition goes
 * to the partition Kafka's default partitioner picks for the key (murmur2 of the key bytes, as
 * every Kafka producer does), so records of one key stay in order in one partition; a record
 * without a key is spread. An exception fails the task.
 *
 * @param <T> element type
 */
@FunctionalInterface
public interface KafkaSerializer<T> extends Serializable {
    /**
     * The record for {@code element}.
     *
     * @param element the element to send
     * @param topic the sink's topic; the record may name another
     * @return the record to send, with byte array key (or null) and value
     * @throws Exception if the element cannot be serialized; this fails the task
     */
    ProducerRecord<byte[], byte[]> serialize(T element, String topic) throws Exception;

    /**
     * A key (or null) for an element, for {@link #keyed}. Called like the serializer: on the sink
     * task's thread, once per element.
     *
     * @param <T> element type
     */
    @FunctionalInterface
    interface KeyFunction<T> extends Serializable {
        /**
         * The key bytes of {@code element}, or null for none.
         *
         * @param element the element to send
         * @return the key bytes, or null for a record without a key
         * @throws Exception if the key cannot be made; this fails the task
         */
        byte[] key(T element) throws Exception;
    }

    /**
     * A value for an element, for {@link #keyed}. Called like the serializer: on the sink task's
     * thread, once per element.
     *
     * @param <T> element type
     */
    @FunctionalInterface
    interface ValueFunction<T> extends Serializable {
        /**
         * The value bytes of {@code element} (null sends a tombstone).
         *
         * @param element the element to send
         * @return the value bytes, or null for a tombstone
         * @throws Exception if the value cannot be made; this fails the task
         */
        byte[] value(T element) throws Exception;
    }

    /**
     * The element's text as the UTF-8 value, no key.
     *
     * @return the serializer
     */
    static KafkaSerializer<String> strings() {
        return (element, topic) ->
                new ProducerRecord<>(topic, element.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The element encoded with {@code codec} as the value, no key.
     *
     * @param <T> element type
     * @param codec the codec to encode values with
     * @return the serializer
     */
    static <T> KafkaSerializer<T> codec(Codec<T> codec) {
        return (element, topic) -> new ProducerRecord<>(topic, codec.toBytes(element));
    }

    /**
     * Keyed records: partitioned by {@code key}, so one key's records stay in order.
     *
     * @param <T> element type
     * @param key gives each element's key bytes
     * @param value gives each element's value bytes
     * @return the serializer
     */
    static <T> KafkaSerializer<T> keyed(KeyFunction<T> key, ValueFunction<T> value) {
        return (element, topic) ->
                new ProducerRecord<>(topic, key.key(element), value.value(element));
    }

    /**
     * UTF-8 bytes of {@code text}, for key and value functions.
     *
     * @param text the text; not null
     * @return its UTF-8 bytes
     */
    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
