/**
 * The Kafka connector: {@link dev.weir.kafka.KafkaSource} (offsets kept in Weir's checkpoints) and
 * {@link dev.weir.kafka.KafkaSink} (exactly-once through Kafka transactions), with their
 * (de)serializers and the tools for a stopped job's open transactions.
 */
package dev.weir.kafka;
