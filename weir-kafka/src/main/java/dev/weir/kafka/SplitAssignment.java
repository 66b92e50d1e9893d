package dev.weir.kafka;

/**
 * Which logical split of a {@link KafkaSource} reads a partition. Pure functions: the answer
 * depends only on the topic's name, the partition and the split count, so every subtask, every run
 * and every parallelism agree, and a partition created while the job runs has an owner at once.
 *
 * <p>Split ids are {@code kafka-<i>-of-<n>}. Partition {@code p} of topic {@code t} belongs to
 * split {@code (floorMod(hash(t), n) + p) mod n}: a topic's partitions go round-robin over the
 * splits (the counts differ by at most one), starting at a split chosen by the topic's name, so
 * many small topics do not all start at split 0.
 */
final class SplitAssignment {
    private static final String PREFIX = "kafka-";

    private SplitAssignment() {}

    /** The id of split {@code index} of {@code count}. */
    static String splitId(int index, int count) {
        return PREFIX + index + "-of-" + count;
    }

    /** The split index and count of {@code splitId}, checked. */
    static int[] parse(String splitId) {
        if (!splitId.startsWith(PREFIX) || !splitId.contains("-of-")) {
            throw new IllegalArgumentException("not a Kafka split id: " + splitId);
        }
        String rest = splitId.substring(PREFIX.length());
        int of = rest.indexOf("-of-");
        int index = Integer.parseInt(rest.substring(0, of));
        int count = Integer.parseInt(rest.substring(of + 4));
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException("not a Kafka split id: " + splitId);
        }
        return new int[] {index, count};
    }

    /** The split that owns {@code partition} of {@code topic} among {@code count} splits. */
    static int owner(String topic, int partition, int count) {
        if (partition < 0) {
            throw new IllegalArgumentException("negative partition " + partition);
        }
        return (int) ((Math.floorMod(topic.hashCode(), count) + (long) partition) % count);
    }
}
