package dev.weir.kafka;

import dev.weir.api.codec.Codec;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Objects;

/**
 * What a checkpoint keeps of one pre-committed Kafka transaction: enough to commit it from a new
 * process (transactional id, producer id and epoch) and to tell, if that fails, whether it was
 * committed before or lost.
 *
 * @param transactionalId the producer's {@code transactional.id}, {@code <prefix>:<subtask>:<slot>}
 * @param topic the sink's topic (its partition 0 carries the sink's progress)
 * @param producerId the producer id the coordinator gave the transaction
 * @param epoch the producer epoch of the transaction
 * @param subtask the sink subtask that wrote it
 * @param checkpointId the checkpoint whose barrier pre-committed it
 * @param startedAtMillis wall-clock time of the transaction's first record (Kafka's transaction
 *     timeout runs from about then)
 * @param timeoutMillis the producer's {@code transaction.timeout.ms}
 */
public record KafkaCommittable(
        String transactionalId,
        String topic,
        long producerId,
        short epoch,
        int subtask,
        long checkpointId,
        long startedAtMillis,
        long timeoutMillis) {
    /**
     * Validates.
     *
     * @param transactionalId the producer's {@code transactional.id}; not null
     * @param topic the sink's topic; not null
     * @param producerId the producer id, not negative
     * @param epoch the producer epoch, not negative
     * @param subtask the sink subtask, not negative
     * @param checkpointId the checkpoint whose barrier pre-committed it
     * @param startedAtMillis wall-clock time of the transaction's first record
     * @param timeoutMillis the producer's {@code transaction.timeout.ms}
     * @throws IllegalArgumentException if the producer id, epoch or subtask is negative
     */
    public KafkaCommittable {
        Objects.requireNonNull(transactionalId, "transactionalId");
        Objects.requireNonNull(topic, "topic");
        if (producerId < 0 || epoch < 0 || subtask < 0) {
            throw new IllegalArgumentException(
                    "bad committable " + transactionalId + " " + producerId + " " + epoch);
        }
    }

    /**
     * How long ago the transaction started.
     *
     * @param nowMillis the current wall-clock time, milliseconds since the epoch
     * @return the age in milliseconds
     */
    public long ageMillis(long nowMillis) {
        return nowMillis - startedAtMillis;
    }

    /**
     * Writes committables into checkpoints; reads what it wrote (id {@code
     * weir.kafka.committable.v1}). {@link KafkaSink#committableCodec} returns one; users need not
     * create it, except to read a sink's committables from a checkpoint.
     */
    public static final class CommittableCodec implements Codec<KafkaCommittable> {
        private static final long serialVersionUID = 1L;

        /** A codec; it holds no state. */
        public CommittableCodec() {}

        @Override
        public void encode(KafkaCommittable c, DataOutput out) throws IOException {
            out.writeUTF(c.transactionalId());
            out.writeUTF(c.topic());
            out.writeLong(c.producerId());
            out.writeShort(c.epoch());
            out.writeInt(c.subtask());
            out.writeLong(c.checkpointId());
            out.writeLong(c.startedAtMillis());
            out.writeLong(c.timeoutMillis());
        }

        @Override
        public KafkaCommittable decode(DataInput in) throws IOException {
            return new KafkaCommittable(
                    in.readUTF(),
                    in.readUTF(),
                    in.readLong(),
                    in.readShort(),
                    in.readInt(),
                    in.readLong(),
                    in.readLong(),
                    in.readLong());
        }

        @Override
        public String id() {
            return "weir.kafka.committable.v1";
        }
    }
}
