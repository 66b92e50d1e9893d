package dev.weir.jdbc;

import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.api.sink.SinkContext;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The job instance that claimed a two-phase-commit sink's transaction id prefix, as its claim row
 * in the progress table records it (see {@link PostgresTwoPhaseCommitSink}). The {@code instanceId}
 * decides ({@link SinkContext#jobInstanceId()}: one per checkpoint directory); the rest tells
 * people which job is which.
 *
 * @param instanceId the job instance id
 * @param job the job's name
 * @param directory the job's checkpoint directory, as its host sees it
 * @param host the host the job ran on when it claimed the prefix
 */
record PrefixOwner(String instanceId, String job, String directory, String host) {
    /** Marks a claim row: {@code <prefix> + MARK + fields}, in the transaction_prefix column. */
    static final String MARK = "\nowner\n";

    /** The subtask column of a claim row (no subtask has it). */
    static final int CLAIM_SUBTASK = -1;

    /** Longest field kept: the whole row text must fit a btree index entry. */
    private static final int MAX_FIELD = 500;

    /** The instance of the job a writer runs in, or empty if the job has no identity. */
    static Optional<PrefixOwner> of(SinkContext context) {
        String id = context.jobInstanceId();
        if (id == null || id.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new PrefixOwner(
                        id,
                        context.jobName(),
                        context.checkpointDirectory().map(Path::toString).orElse("?"),
                        Host.NAME));
    }

    /** This host's name, looked up once per JVM. */
    static String thisHost() {
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

    /** What {@code prefix}'s claim rows start with in the transaction_prefix column. */
    static String rowStart(String prefix) {
        return prefix + MARK;
    }

    /** This owner's claim row text for {@code prefix}. */
    String encode(String prefix) {
        return rowStart(prefix)
                + "instance="
                + cut(instanceId)
                + "\njob="
                + cut(job)
                + "\nhost="
                + cut(host)
                + "\ndirectory="
                + cut(directory);
    }

    /** The owner in a claim row of {@code prefix}, or empty if the row is not one. */
    static Optional<PrefixOwner> decode(String prefix, String row) {
        if (row == null || !row.startsWith(rowStart(prefix))) {
            return Optional.empty();
        }
        Map<String, String> fields = new HashMap<>();
        for (String line : row.substring(rowStart(prefix).length()).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                fields.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        String id = fields.get("instance");
        if (id == null || id.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new PrefixOwner(
                        id,
                        fields.getOrDefault("job", "?"),
                        fields.getOrDefault("directory", "?"),
                        fields.getOrDefault("host", "?")));
    }

    private static String cut(String value) {
        String oneLine = value.replace('\n', ' ').replace('\r', ' ');
        return oneLine.length() <= MAX_FIELD ? oneLine : oneLine.substring(0, MAX_FIELD) + "...";
    }

    /**
     * True if this owner looks gone: it ran on {@code thisHost} and its checkpoint directory there
     * no longer holds its instance id (deleted, or deleted and started over). A job that lost its
     * directory cannot restart, so its claim protects nothing. False when in doubt (another host, a
     * cut, relative or unreadable path). Not proof on its own: two containers with the same host
     * name and their own volumes (or a bind mount) see different directories under one path, so the
     * writer also requires that no session and no prepared transaction of the prefix exists.
     */
    boolean isGoneFrom(String thisHost) {
        if (host.equals("?") || !host.equals(thisHost) || directory.endsWith("...")) {
            return false;
        }
        try {
            Path dir = Path.of(directory);
            if (!dir.isAbsolute()) {
                return false;
            }
            return !CheckpointView.instanceId(dir).map(instanceId::equals).orElse(false);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * A short tag of {@code owner}'s instance id, which ends the application_name of its sessions.
     */
    static String tag(PrefixOwner owner) {
        String id = owner.instanceId().replaceAll("[^A-Za-z0-9]", "");
        return id.length() > 8 ? id.substring(0, 8) : id;
    }

    /** For people: job name, checkpoint directory, host and instance id in one phrase. */
    String describe() {
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
