package dev.weir.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.sink.JobInstance;
import dev.weir.api.sink.SinkContext;
import dev.weir.internal.checkpoint.CheckpointStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job instance a sink records next to its transactions (claims on a prefix). */
class JobInstanceTest {
    @TempDir Path temp;

    /** A sink's context: the record's accessors are the interface's methods. */
    private record Context(
            String jobName,
            String sinkName,
            int subtaskIndex,
            int parallelism,
            String jobInstanceId,
            Path directory)
            implements SinkContext {
        @Override
        public Optional<Path> checkpointDirectory() {
            return Optional.ofNullable(directory);
        }
    }

    private static SinkContext context(String instanceId, Path directory) {
        return new Context("orders", "out", 0, 1, instanceId, directory);
    }

    @Test
    void aJobWithAnIdentityIsAnInstanceOnThisHostAndOneWithoutIsNone() {
        Path dir = temp.resolve("chk");
        assertThat(JobInstance.of(context("6f1c-42", dir)))
                .hasValue(
                        new JobInstance(
                                "6f1c-42", "orders", dir.toString(), JobInstance.thisHost()));
        assertThat(JobInstance.of(context("", null))).isEmpty();
        assertThat(JobInstance.thisHost()).isNotBlank().isSameAs(JobInstance.thisHost());
    }

    @Test
    void describeNamesJobDirectoryHostAndInstance() {
        assertThat(new JobInstance("6f1c-42", "orders", "/var/weir/chk", "host-a").describe())
                .isEqualTo(
                        "job 'orders' with checkpoint directory /var/weir/chk on host host-a"
                                + " (instance 6f1c-42)");
    }

    @Test
    void cutKeepsAFieldOnOneLineAndWithinItsLimit() {
        assertThat(JobInstance.cut("a\nb\rc", 10)).isEqualTo("a b c");
        assertThat(JobInstance.cut("abcdef", 6)).isEqualTo("abcdef");
        assertThat(JobInstance.cut("abcdefg", 6)).isEqualTo("abcdef...");
    }

    @Test
    void theLinesReadBackAsTheInstanceAndForgedLinesInAFieldStayInIt() {
        JobInstance instance = new JobInstance("id-7", "orders", "/var/weir/orders=1/chk", "h");
        assertThat(JobInstance.parse("a header\n" + instance.lines(100))).hasValue(instance);
        JobInstance odd = new JobInstance("id-7", "job\ninstance=forged", "/d".repeat(50), "h");
        JobInstance read = JobInstance.parse(odd.lines(20)).orElseThrow();
        assertThat(read.instanceId()).isEqualTo("id-7");
        assertThat(read.job()).isEqualTo("job instance=forged");
        assertThat(read.directory()).hasSize(23).endsWith("...");
        assertThat(JobInstance.parse("a header without an instance")).isEmpty();
        assertThat(JobInstance.parse(null)).isEmpty();
    }

    @Test
    void anInstanceIsGoneFromItsHostOnlyWhenItsDirectoryThereNoLongerHoldsIt() throws Exception {
        Path dir = temp.resolve("chk");
        String id;
        try (CheckpointStore store = new CheckpointStore(dir, 3)) {
            id = store.instanceId();
        }
        JobInstance owner = new JobInstance(id, "orders", dir.toString(), "host-a");
        assertThat(owner.isGoneFrom("host-a")).as("its directory holds it").isFalse();
        assertThat(
                        new JobInstance("other-id", "orders", dir.toString(), "host-a")
                                .isGoneFrom("host-a"))
                .as("the directory holds another instance (deleted and started over)")
                .isTrue();
        assertThat(owner.isGoneFrom("host-b")).as("another host: in doubt").isFalse();
        assertThat(new JobInstance(id, "orders", "relative/chk", "host-a").isGoneFrom("host-a"))
                .as("a relative path: in doubt")
                .isFalse();
        assertThat(new JobInstance(id, "orders", dir + "...", "host-a").isGoneFrom("host-a"))
                .as("a cut path: in doubt")
                .isFalse();

        Files.delete(dir.resolve(CheckpointStore.INSTANCE_ID));
        assertThat(owner.isGoneFrom("host-a")).as("its directory lost _instance-id").isTrue();
        assertThat(new JobInstance(id, "orders", dir.toString(), "?").isGoneFrom("?"))
                .as("an unknown host: in doubt")
                .isFalse();
    }

    @Test
    void theRefusalNamesBothJobsTheFixAndForAJobOfTheSameNameHowToRunItAsTheSameInstance() {
        JobInstance other = new JobInstance("id-1", "orders", "/a/chk", "host-a");
        JobInstance self = new JobInstance("id-2", "orders", "/b/chk", "host-b");
        JobInstance.SharedPrefix shared =
                new JobInstance.SharedPrefix(
                        "out",
                        "orders",
                        self,
                        "transaction id prefix",
                        "weir:orders:out",
                        "Somewhere at x",
                        "Sharing hurts.",
                        false,
                        "p",
                        "Sink.prefix",
                        "system");
        String refusal = shared.refusal(other, "is claimed by", " It runs.", "Release it");
        assertThat(refusal)
                .startsWith(
                        "sink 'out' refuses to run: its transaction id prefix 'weir:orders:out' on"
                                + " Somewhere at x is claimed by another job: "
                                + other.describe()
                                + ". It runs. This job is "
                                + self.describe()
                                + ". Sharing hurts. Jobs with the same job and sink names share"
                                + " the default prefix weir:<job>:<sink>. If both jobs are meant to"
                                + " run, give each sink a prefix of its own:"
                                + " Sink.prefix(\"weir:orders:out:<deployment>\"), unique on the"
                                + " system.")
                .contains(
                        "If this is the same job moved, start it on its checkpoint directory /a/chk")
                .endsWith(" Release it");

        JobInstance.SharedPrefix anonymous =
                new JobInstance.SharedPrefix(
                        "out",
                        "orders",
                        null,
                        "transaction id prefix",
                        "mine",
                        "Somewhere at x",
                        "Sharing hurts.",
                        true,
                        "p",
                        "Sink.prefix",
                        "system");
        assertThat(anonymous.refusal(other, "is claimed by", "", "Release it"))
                .contains(" This job, 'orders', has no instance id")
                .contains(" The prefix was set with p.")
                .doesNotContain("default prefix")
                .contains("enable checkpointing on its checkpoint directory /a/chk");
        assertThat(
                        anonymous.refusal(
                                new JobInstance("id-1", "billing", "/a/chk", "host-a"),
                                "is claimed by",
                                "",
                                "Release it"))
                .doesNotContain("/a/chk (")
                .doesNotContain("same job");
    }
}
