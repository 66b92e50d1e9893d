package dev.weir.api.sink;

import dev.weir.api.checkpoint.CheckpointView;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A job instance as a sink records it next to what it writes in an external system: in the claim on
 * its transaction id prefix (the Kafka sink also in its progress offsets). The {@code instanceId}
 * decides which job owns the prefix ({@link SinkContext#jobInstanceId()}: one per checkpoint
 * directory); the rest is there so that a refusal can tell people which job is which.
 *
 * <p>Each connector keeps its own framing of the {@link #lines text form} and its own limit on a
 * field's length (what its external system accepts). Immutable and thread-safe.
 *
 * @param instanceId the job instance id
 * @param job the job's name
 * @param directory the job's checkpoint directory, as its host sees it ("?" if unknown)
 * @param host the host the job ran on when it wrote this ("?" if unknown)
 */
public record JobInstance(String instanceId, String job, String directory, String host) {
    /** What a field cut to its limit ends with. */
    private static final String CUT_MARK = "...";

    /**
     * The instance of the job a writer runs in; called by a sink writer when it is created, on the
     * thread that creates it. Looks the host name up the first time it is called in a JVM.
     *
     * @param context the writer's context
     * @return the instance, or empty if the runner gives the job no identity ({@link
     *     SinkContext#jobInstanceId()} is "")
     */
    public static Optional<JobInstance> of(SinkContext context) {
        String id = context.jobInstanceId();
        if (id == null || id.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new JobInstance(
                        id,
                        context.jobName(),
                        context.checkpointDirectory().map(Path::toString).orElse("?"),
                        thisHost()));
    }

    /**
     * This host's name: environment variable {@code HOSTNAME} or {@code COMPUTERNAME}, else what
     * the resolver says for the local host, else "?". Looked up once per JVM, by the first thread
     * that asks (a slow resolver costs one look-up, not one per writer).
     *
     * @return this host's name
     */
    public static String thisHost() {
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

    /**
     * {@code value} on one line (line breaks become spaces), cut to {@code maxLength} characters
     * followed by "..." if longer.
     *
     * @param value a field's value
     * @param maxLength the longest value kept whole
     * @return the value as a line of the {@link #lines text form}
     */
    public static String cut(String value, int maxLength) {
        String oneLine = value.replace('\n', ' ').replace('\r', ' ');
        return oneLine.length() <= maxLength ? oneLine : oneLine.substring(0, maxLength) + CUT_MARK;
    }

    /**
     * The text form of this instance: lines {@code instance=}, {@code job=}, {@code host=} and
     * {@code directory=}, each value {@link #cut} to {@code maxLength}; {@link #parse} reads it
     * back. A connector frames it (a header line, a prefix) to fit its external system.
     *
     * @param maxLength the longest field value kept whole
     * @return the four lines, joined by "\n", with no line break at either end
     */
    public String lines(int maxLength) {
        return "instance="
                + cut(instanceId, maxLength)
                + "\njob="
                + cut(job, maxLength)
                + "\nhost="
                + cut(host, maxLength)
                + "\ndirectory="
                + cut(directory, maxLength);
    }

    /**
     * The instance in text written by {@link #lines}; lines without "=" (a connector's header) are
     * skipped.
     *
     * @param text the text, or null
     * @return the instance, or empty if the text names no instance (null, or written before Weir
     *     recorded instances); a missing job, directory or host is "?"
     */
    public static Optional<JobInstance> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Map<String, String> fields = new HashMap<>();
        for (String line : text.split("\n")) {
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
                new JobInstance(
                        id,
                        fields.getOrDefault("job", "?"),
                        fields.getOrDefault("directory", "?"),
                        fields.getOrDefault("host", "?")));
    }

    /**
     * True if this instance, as a claim recorded it, looks gone: it ran on {@code thisHost} and its
     * checkpoint directory there no longer holds its instance id ({@code _instance-id} missing or
     * naming another instance: the directory was deleted, or deleted and started over). A job that
     * lost its directory cannot restart, so its claim protects nothing. False when in doubt
     * (another or unknown host, a cut, relative, invalid or unreadable path). Not proof on its own:
     * two containers with the same host name and their own volumes (or a bind mount) see different
     * directories under one path. Called by a sink writer that found another instance's claim, on
     * its own thread; reads the file system.
     *
     * @param thisHost the host name of the job asking (see {@link #thisHost()})
     * @return true if the instance's directory on this host no longer holds it
     */
    public boolean isGoneFrom(String thisHost) {
        if (host.equals("?") || !host.equals(thisHost) || directory.endsWith(CUT_MARK)) {
            return false;
        }
        try {
            Path dir = Path.of(directory);
            if (!dir.isAbsolute()) {
                return false;
            }
            return !CheckpointView.instanceId(dir).map(instanceId::equals).orElse(false);
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

    /**
     * A sink writer's transaction id prefix, as its refusal to share it with another job instance
     * names it: built by the writer (on the thread that creates it) from its connector's words.
     *
     * @param sinkName the sink's name in the job
     * @param jobName the writer's job's name
     * @param self the writer's job instance, or null if the job has none
     * @param term what the connector calls the prefix, for example "transactional id prefix"
     * @param prefix the prefix
     * @param where the external system, for example "Kafka at broker:9092"
     * @param harm one or more sentences: what jobs sharing the prefix do to each other, and that
     *     this writer did none of it
     * @param explicitPrefix true if the prefix was set by the user, false if it is the default
     *     {@code weir:<job>:<sink>}
     * @param setBy how a set prefix was set, for example "KafkaSink.transactionalIdPrefix"
     * @param setter the method that sets a prefix of its own, with its class, for example
     *     "KafkaSink.transactionalIdPrefix"
     * @param scope where a prefix must be unique, for example "cluster"
     */
    public record SharedPrefix(
            String sinkName,
            String jobName,
            JobInstance self,
            String term,
            String prefix,
            String where,
            String harm,
            boolean explicitPrefix,
            String setBy,
            String setter,
            String scope) {
        /**
         * The refusal when {@code other}, another job instance, uses this prefix: names both jobs,
         * says what sharing does, how to give each its own prefix and, for a job of the same name,
         * how to run it as the same instance. Called by the writer that refuses, on its thread.
         *
         * @param other the other job instance
         * @param how how the other uses the prefix, ending before "another job", for example "is
         *     claimed by"
         * @param evidence one or more sentences starting with a space on why the other counts as
         *     running, or ""
         * @param release the last sentence, without its final period: how to release the prefix if
         *     the other job is gone for good
         * @return the message
         */
        public String refusal(JobInstance other, String how, String evidence, String release) {
            return "sink '"
                    + sinkName
                    + "' refuses to run: its "
                    + term
                    + " '"
                    + prefix
                    + "' on "
                    + where
                    + " "
                    + how
                    + " another job: "
                    + other.describe()
                    + "."
                    + evidence
                    + (self != null
                            ? " This job is " + self.describe() + "."
                            : " This job, '"
                                    + jobName
                                    + "', has no instance id (checkpointing is off or has no"
                                    + " checkpoint directory), so it cannot own the prefix.")
                    + " "
                    + harm
                    + (explicitPrefix
                            ? " The prefix was set with " + setBy + "."
                            : " Jobs with the same job and sink names share the default prefix"
                                    + " weir:<job>:<sink>.")
                    + " If both jobs are meant to run, give each sink a prefix of its own: "
                    + setter
                    + "(\""
                    + prefix
                    + ":<deployment>\"), unique on the "
                    + scope
                    + "."
                    + sameJobAdvice(other)
                    + " "
                    + release;
        }

        private String sameJobAdvice(JobInstance other) {
            // Same name, other directory: it may be this job moved. Same directory too: it is
            // this job started over there, and pointing at that directory would say nothing.
            if (!other.job().equals(jobName)
                    || (self != null && other.directory().equals(self.directory()))) {
                return "";
            }
            return self != null
                    ? " If this is the same job moved, start it on its checkpoint directory "
                            + other.directory()
                            + " (a job's identity is its checkpoint directory)."
                    : " If this is the same job, enable checkpointing on its checkpoint directory "
                            + other.directory()
                            + " (Pipeline.checkpointing(CheckpointConfig.exactlyOnce(interval,"
                            + " directory))): a job's identity is its checkpoint directory.";
        }
    }
}
