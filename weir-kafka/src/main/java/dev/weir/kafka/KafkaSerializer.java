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
    /** The record for {@code element}; {@code topic} is the sink's topic. */
    ProducerRecord<byte[], byte[]> serialize(T element, String topic) throws Exception;

    /** A key (or null) for an element. */
    @FunctionalInterface
    interface KeyFunction<T> extends Serializable {
        /** The key bytes of {@code element}, or null for none. */
        byte[] key(T element) throws Exception;
    }

    /** A value for an element. */
    @FunctionalInterface
    interface ValueFunction<T> extends Serializable {
        /** The value bytes of {@code element} (null sends a tombstone). */
        byte[] value(T element) throws Exception;
    }

    /** The element's text as the UTF-8 value, no key. */
    static KafkaSerializer<String> strings() {
        return (element, topic) ->
                new ProducerRecord<>(topic, element.getBytes(StandardCharsets.UTF_8));
    }

    /** The element encoded with {@code codec} as the value, no key. */
    static <T> KafkaSerializer<T> codec(Codec<T> codec) {
        return (element, topic) -> new ProducerRecord<>(topic, codec.toBytes(element));
    }

    /** Keyed records: partitioned by {@code key}, so one key's records stay in order. */
    static <T> KafkaSerializer<T> keyed(KeyFunction<T> key, ValueFunction<T> value) {
        return (element, topic) ->
                new ProducerRecord<>(topic, key.key(element), value.value(element));
    }

    /** UTF-8 bytes of {@code text}, for key and value functions. */
    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
