package dev.weir.kafka;

import dev.weir.api.sink.SinkContext;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A job instance as a Kafka sink records it next to its transactions: in the claim on its
 * transactional id prefix and in its progress offsets' metadata (see {@link KafkaTransactions}).
 * The {@code instanceId} decides ({@link SinkContext#jobInstanceId()}: one per checkpoint
 * directory); the rest is there so that a refusal can tell people which job is which.
 *
 * @param instanceId the job instance id
 * @param job the job's name
 * @param directory the job's checkpoint directory, as its host sees it
 * @param host the host the job ran on when it wrote this
 */
public record JobInstance(String instanceId, String job, String directory, String host) {
    private static final String CLAIM_HEADER = "weir sink prefix owner";
    private static final int MAX_FIELD = 900; // offset metadata is at most 4096 bytes by default

    /**
     * The instance of the job a writer runs in, or empty if the runner gives the job no identity
     * ({@link SinkContext#jobInstanceId()} is "").
     */
    static Optional<JobInstance> of(SinkContext context) {
        if (context.jobInstanceId() == null || context.jobInstanceId().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new JobInstance(
                        context.jobInstanceId(),
                        context.jobName(),
                        context.checkpointDirectory().map(Object::toString).orElse("?"),
                        hostName()));
    }

    /**
     * This host's name, looked up once per JVM (a slow resolver costs one look-up, not one per
     * writer).
     */
    static String hostName() {
        return Host.NAME;
    }

    private static final class Host {
        static final String NAME = lookUp();

        private static String lookUp() {
            for (String variable : new String[] {"HOSTNAME", "COMPUTERNAME"}) {
                String name = System.getenv(variable);
                if (name != null && !name.isBlank()) {
                    return name.trim();
                }
            }
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                return "?";
            }
        }
    }

    /** As offset metadata: a header line, then {@code key=value} lines. */
    String encode(String header) {
        return header
                + "\ninstance="
                + instanceId
                + "\njob="
                + cut(job)
                + "\nhost="
                + cut(host)
                + "\ndirectory="
                + cut(directory);
    }

    /** As the metadata of a claim. */
    String encodeClaim() {
        return encode(CLAIM_HEADER);
    }

    /** The instance in offset metadata written by {@link #encode}, if it names one. */
    static Optional<JobInstance> decode(String metadata) {
        if (metadata == null) {
            return Optional.empty();
        }
        Map<String, String> fields = new HashMap<>();
        for (String line : metadata.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                fields.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        String id = fields.get("instance");
        if (id == null || id.isEmpty()) {
            return Optional.empty(); // written before Weir recorded instances
        }
        return Optional.of(
                new JobInstance(
                        id,
                        fields.getOrDefault("job", "?"),
                        fields.getOrDefault("directory", "?"),
                        fields.getOrDefault("host", "?")));
    }

    private static String cut(String value) {
        String oneLine = value.replace('\n', ' ');
        return oneLine.length() <= MAX_FIELD ? oneLine : oneLine.substring(0, MAX_FIELD) + "...";
    }

    /**
     * True if this instance, as a claim recorded it, looks gone: it ran on {@code thisHost} and its
     * checkpoint directory there no longer exists or now belongs to another instance (deleted, or
     * deleted and started over). A job that lost its directory cannot restart, so its claim
     * protects nothing. False when in doubt (another host, a cut or unreadable path). Not proof:
     * two containers with the same host name and their own volumes (or a bind mount) see different
     * directories under one path, so the sink only says so in its refusal and never takes the claim
     * over by itself.
     *
     * @param thisHost the host name of the job asking
     * @return true if the owner's directory on this host no longer holds it
     */
    boolean isGoneFrom(String thisHost) {
        if (host.equals("?") || !host.equals(thisHost) || directory.endsWith("...")) {
            return false;
        }
        try {
            java.nio.file.Path dir = java.nio.file.Path.of(directory);
            if (!dir.isAbsolute()) {
                return false;
            }
            return !dev.weir.api.checkpoint.CheckpointView.instanceId(dir)
                    .map(instanceId::equals)
                    .orElse(false);
        } catch (RuntimeException e) {
            return false; // an invalid or unreadable path: keep the claim
        }
    }

    /**
     * For people.
     *
     * @return job name, checkpoint directory, host and instance id in one phrase
     */
    public String describe() {
        return "job '"
                + job
                + "' with checkpoint directory "
                + directory
                + " on host "
                + host
                + " (instance "
                + instanceId
                + ")";
    }
}
