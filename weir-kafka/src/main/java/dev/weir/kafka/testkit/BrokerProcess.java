package dev.weir.kafka.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A single-node Kafka broker (KRaft, broker and controller in one process) in a child JVM, for
 * crash tests, {@code weir verify} and benchmarks: it can be killed with SIGKILL, restarted on its
 * data, and paused with SIGSTOP.
 *
 * <p>The child runs {@code kafka.Kafka} from a class path that holds the broker's jars ({@code
 * org.apache.kafka:kafka_2.13} and its dependencies; a test class path with {@code
 * kafka-test-common-runtime} has them). Listeners are on 127.0.0.1 at free ports chosen at start
 * and kept across restarts; internal topics have one partition and replica, so recovery after a
 * kill is quick. The broker's own output goes to {@code broker.log} in its directory.
 *
 * <p>Not thread-safe. Methods that wait (start, restart) wait at most {@link #READY_TIMEOUT}.
 */
public final class BrokerProcess implements AutoCloseable {
    /** Longest wait for the broker to answer after a start. */
    public static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final Path directory;
    private final String classPath;
    private final int brokerPort;
    private final int controllerPort;
    private final Map<String, String> overrides;
    private volatile Process process;
    private boolean hookInstalled;

    private BrokerProcess(Path directory, String classPath, Map<String, String> overrides)
            throws IOException {
        this.directory = directory;
        this.classPath = classPath;
        this.overrides = Map.copyOf(overrides);
        int[] ports = freePorts(2);
        this.brokerPort = ports[0];
        this.controllerPort = ports[1];
    }

    /**
     * Formats a new broker in {@code directory} (created if missing) and starts it; returns once it
     * answers. {@code overrides} are extra or changed {@code server.properties}.
     */
    public static BrokerProcess start(
            Path directory, String classPath, Map<String, String> overrides)
            throws IOException, InterruptedException {
        Files.createDirectories(directory);
        BrokerProcess broker = new BrokerProcess(directory, classPath, overrides);
        broker.writeProperties();
        broker.format();
        broker.launch();
        return broker;
    }

    /** The class path of this JVM, which holds the broker's jars in tests. */
    public static String thisClassPath() {
        return System.getProperty("java.class.path");
    }

    /** {@code 127.0.0.1:<port>} of the broker's client listener. */
    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** The child's process id. */
    public long pid() {
        return process.pid();
    }

    private Path properties() {
        return directory.resolve("server.properties");
    }

    private void writeProperties() throws IOException {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", "1");
        config.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        config.put(
                "listeners",
                "PLAINTEXT://127.0.0.1:"
                        + brokerPort
                        + ",CONTROLLER://127.0.0.1:"
                        + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        config.put("controller.listener.names", "CONTROLLER");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("log.dirs", directory.resolve("data").toString());
        config.put("offsets.topic.replication.factor", "1");
        config.put("offsets.topic.num.partitions", "1");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("transaction.state.log.num.partitions", "1");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.put("auto.create.topics.enable", "false");
        config.put("num.partitions", "1");
        config.putAll(overrides);
        Properties props = new Properties();
        props.putAll(config);
        try (var out = Files.newBufferedWriter(properties(), StandardCharsets.UTF_8)) {
            props.store(out, "single-node KRaft broker for Weir tests");
        }
    }

    private List<String> java(String main, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms256m");
        command.add("-Xmx768m");
        command.add("-XX:+UseG1GC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(classPath);
        command.add(main);
        command.addAll(List.of(args));
        return command;
    }

    private void format() throws IOException, InterruptedException {
        Process format =
                new ProcessBuilder(
                                java(
                                        "kafka.tools.StorageTool",
                                        "format",
                                        "-t",
                                        Uuid.randomUuid().toString(),
                                        "-c",
                                        properties().toString()))
                        .redirectErrorStream(true)
                        .redirectOutput(
                                ProcessBuilder.Redirect.appendTo(
                                        directory.resolve("broker.log").toFile()))
                        .start();
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
            format.destroyForcibly();
            throw new IOException(
                    "formatting the broker's storage failed; see "
                            + directory.resolve("broker.log"));
        }
    }

    private void launch() throws IOException, InterruptedException {
        process =
                new ProcessBuilder(java("kafka.Kafka", properties().toString()))
                        .redirectErrorStream(true)
                        .redirectOutput(
                                ProcessBuilder.Redirect.appendTo(
                                        directory.resolve("broker.log").toFile()))
                        .start();
        if (!hookInstalled) {
            // A broker must not outlive the JVM that started it (a test run killed by Ctrl-C).
            Runtime.getRuntime()
                    .addShutdownHook(
                            new Thread(
                                    () -> {
                                        if (process != null) {
                                            process.destroyForcibly();
                                        }
                                    },
                                    "broker-process-reaper"));
            hookInstalled = true;
        }
        awaitReady();
    }

    /** Waits until the broker answers a cluster description; fails if it died or took too long. */
    public void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "2000");
        try (Admin admin = Admin.create(props)) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException(
                            "the broker exited with "
                                    + process.exitValue()
                                    + "; see "
                                    + directory.resolve("broker.log"));
                }
                try {
                    if (!admin.describeCluster().nodes().get(2, TimeUnit.SECONDS).isEmpty()) {
                        return;
                    }
                } catch (java.util.concurrent.ExecutionException
                        | java.util.concurrent.TimeoutException e) {
                    // not yet
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(
                            "the broker did not answer within "
                                    + READY_TIMEOUT
                                    + "; see "
                                    + directory.resolve("broker.log"));
                }
                Thread.sleep(100);
            }
        }
    }

    /** SIGKILL: the broker dies at once, with whatever it had not written to disk. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Starts the broker again on its data and ports (after {@link #kill}); returns when ready. */
    public void restart() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the broker still runs; kill it first");
        }
        launch();
    }

    /** SIGSTOP: the broker stops answering, connections stay open. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause}. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + name + " " + pid() + " failed");
        }
    }

    private static int[] freePorts(int count) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                ServerSocket socket = new ServerSocket(0);
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException e) {
                    // closing a probe socket
                }
            }
        }
    }

    /** Kills the broker (a paused one too) and waits for it. */
    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
        }
    }
}
