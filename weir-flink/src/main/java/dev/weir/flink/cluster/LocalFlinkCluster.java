package dev.weir.flink.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A standalone Flink 2.3 session cluster from this JVM's class path (tests, {@code weir verify
 * --runner flink}): one JobManager and {@code n} TaskManagers with 2 slots each, as child JVMs (the
 * recipe in COMPONENTS.md: every TaskManager memory value set, since Flink's launch scripts are not
 * there to compute them). TaskManagers can be SIGKILLed and started again. Their output goes to
 * files beside the configuration.
 *
 * <p>A tool for tests and for {@code weir verify}, not for production: it binds to localhost only
 * and sizes the JVMs for a small machine. Not thread-safe; {@link #close} kills every process.
 */
public final class LocalFlinkCluster implements AutoCloseable {
    private final Path dir;
    private final int restPort;
    private Process jobManager;
    private final List<Process> taskManagers = new ArrayList<>();
    private final List<String> taskManagerIds = new ArrayList<>();
    private int launched;

    private LocalFlinkCluster(Path dir, int restPort) {
        this.dir = dir;
        this.restPort = restPort;
    }

    /**
     * Starts the JobManager and {@code taskManagers} TaskManagers; waits until all registered.
     *
     * @param dir a directory for the configuration, the temporary files and each process's log
     * @param taskManagers the number of TaskManagers, each with 2 slots
     * @param timeout how long to wait for every TaskManager to register
     * @return the running cluster; close it to stop its processes
     * @throws IllegalStateException if the JobManager exits, or the TaskManagers do not register in
     *     time (the message names the log to read)
     * @throws Exception if the files cannot be written or a process cannot be started
     */
    public static LocalFlinkCluster start(Path dir, int taskManagers, Duration timeout)
            throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOnce(dir, taskManagers, timeout);
            } catch (JobManagerExited e) {
                // Its ports are picked free before it starts, and another socket can take one
                // meanwhile (a JobManager exited once in CI; its log was gone with the test's
                // directory): start again on new ports, keeping the log of the attempt.
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
                Files.move(
                        dir.resolve("jobmanager.log"),
                        dir.resolve("jobmanager-attempt-" + attempt + ".log"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    /** Attempts at starting a cluster whose JobManager exits while it starts. */
    private static final int START_ATTEMPTS = 3;

    /** The JobManager exited while the cluster started. */
    private static final class JobManagerExited extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        JobManagerExited(String message) {
            super(message);
        }
    }

    /** One attempt of {@link #start}; its processes are killed if it fails. */
    private static LocalFlinkCluster startOnce(Path dir, int taskManagers, Duration timeout)
            throws Exception {
        int rpcPort = freePort();
        int restPort = freePort();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(
                conf.resolve("config.yaml"),
                String.join(
                        "\n",
                        "jobmanager.rpc.address: localhost",
                        "jobmanager.rpc.port: " + rpcPort,
                        "jobmanager.bind-host: localhost",
                        "rest.port: " + restPort,
                        "rest.address: localhost",
                        "rest.bind-address: localhost",
                        "taskmanager.bind-host: localhost",
                        "taskmanager.host: localhost",
                        "taskmanager.numberOfTaskSlots: 2",
                        "taskmanager.load-balance.mode: slots",
                        "heartbeat.interval: 2000",
                        "heartbeat.timeout: 10000",
                        "taskmanager.cpu.cores: 1.0",
                        "taskmanager.memory.framework.heap.size: 128m",
                        "taskmanager.memory.task.heap.size: 256m",
                        "taskmanager.memory.framework.off-heap.size: 128m",
                        "taskmanager.memory.task.off-heap.size: 0m",
                        "taskmanager.memory.network.min: 64m",
                        "taskmanager.memory.network.max: 64m",
                        "taskmanager.memory.managed.size: 128m",
                        "taskmanager.memory.jvm-metaspace.size: 256m",
                        "taskmanager.memory.jvm-overhead.min: 192m",
                        "taskmanager.memory.jvm-overhead.max: 192m",
                        "io.tmp.dirs: " + Files.createDirectories(dir.resolve("tmp")),
                        ""));
        LocalFlinkCluster cluster = new LocalFlinkCluster(dir, restPort);
        try {
            cluster.jobManager =
                    cluster.launch(
                            "jobmanager",
                            List.of("-Xmx512m", "-XX:MaxMetaspaceSize=256m"),
                            "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint");
            for (int i = 0; i < taskManagers; i++) {
                cluster.taskManagers.add(null);
                cluster.taskManagerIds.add(null);
                cluster.launchTaskManager(i);
            }
            cluster.awaitTaskManagers(taskManagers, timeout);
            return cluster;
        } catch (Exception | Error e) {
            cluster.close(); // no TaskManager outlives a failed start
            throw e;
        }
    }

    /**
     * The REST port jobs are submitted to, as {@code FlinkRunner.remote("localhost", port)} takes
     * it.
     *
     * @return the port, on localhost
     */
    public int restPort() {
        return restPort;
    }

    /**
     * SIGKILLs the first TaskManager that runs tasks (a slot in use, by the REST endpoint) and
     * waits until its process is gone; returns its index.
     *
     * @return the index of the TaskManager killed
     * @throws IllegalStateException if no TaskManager runs tasks
     * @throws Exception if the REST endpoint cannot be asked, or the wait is interrupted
     */
    public int killBusyTaskManager() throws Exception {
        int killed = killBusyTaskManager(null);
        if (killed < 0) {
            throw new IllegalStateException("no TaskManager runs tasks: " + rest("/taskmanagers"));
        }
        return killed;
    }

    /**
     * SIGKILLs a TaskManager that runs tasks, picked by {@code random} among those that do (the
     * first if null), and waits until its process is gone; returns its index, or -1 if none runs
     * tasks (the job ended, or is between attempts).
     *
     * @param random picks among the busy TaskManagers (seeded, for a reproducible run), or null for
     *     the first
     * @return the index of the TaskManager killed, or -1 if none runs tasks
     * @throws Exception if the wait for the process is interrupted
     */
    public int killBusyTaskManager(java.util.Random random) throws Exception {
        List<Integer> busy = new ArrayList<>();
        for (int i = 0; i < taskManagers.size(); i++) {
            if (!taskManagers.get(i).isAlive()) {
                continue;
            }
            String info;
            try {
                info = rest("/taskmanagers/" + taskManagerIds.get(i));
            } catch (IOException notRegisteredYet) {
                continue;
            }
            Matcher slots = Pattern.compile("\"slotsNumber\":(\\d+)").matcher(info);
            Matcher free = Pattern.compile("\"freeSlots\":(\\d+)").matcher(info);
            if (slots.find() && free.find() && !free.group(1).equals(slots.group(1))) {
                busy.add(i);
            }
        }
        if (busy.isEmpty()) {
            return -1;
        }
        int index = busy.get(random == null ? 0 : random.nextInt(busy.size()));
        Process process = taskManagers.get(index);
        process.destroyForcibly();
        process.waitFor();
        return index;
    }

    /**
     * Starts TaskManager {@code index} again, with a new resource id; does not wait for it to
     * register.
     *
     * @param index the TaskManager's index, from 0
     * @throws IOException if the process cannot be started
     */
    public void restartTaskManager(int index) throws IOException {
        launchTaskManager(index);
    }

    /**
     * The process id of TaskManager {@code index}.
     *
     * @param index the TaskManager's index, from 0
     * @return the operating system's process id of its current process
     */
    public long taskManagerPid(int index) {
        return taskManagers.get(index).pid();
    }

    /**
     * GETs {@code path} from the REST endpoint; returns the body.
     *
     * @param path the REST path, such as {@code /taskmanagers}
     * @return the response body (JSON)
     * @throws IOException if the endpoint cannot be reached in time or answers with an error
     */
    public String rest(String path) throws IOException {
        HttpURLConnection connection =
                (HttpURLConnection)
                        URI.create("http://localhost:" + restPort + path).toURL().openConnection();
        connection.setConnectTimeout(2_000);
        connection.setReadTimeout(5_000);
        try (InputStream in = connection.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            connection.disconnect();
        }
    }

    private void launchTaskManager(int index) throws IOException {
        String id = "tm-" + index + "-" + launched++;
        taskManagerIds.set(index, id);
        taskManagers.set(
                index,
                launch(
                        id,
                        List.of(
                                "-Xms384m",
                                "-Xmx384m",
                                "-XX:MaxDirectMemorySize=192m",
                                "-XX:MaxMetaspaceSize=256m"),
                        "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
                        "-Dtaskmanager.resource-id=" + id));
    }

    private Process launch(String name, List<String> jvmFlags, String mainClass, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.add("--configDir");
        command.add(dir.resolve("conf").toString());
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile())
                .start();
    }

    /**
     * Waits until {@code count} TaskManagers are registered, asking the REST endpoint; a connection
     * refused while the JobManager starts is retried.
     */
    private void awaitTaskManagers(int count, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            if (!jobManager.isAlive()) {
                throw new JobManagerExited(
                        "the JobManager exited; see "
                                + dir.resolve("jobmanager.log")
                                + ", which ends: "
                                + problemsIn(dir.resolve("jobmanager.log")));
            }
            try {
                last = rest("/taskmanagers");
                if (countOf(last, "\"id\"") >= count) {
                    return;
                }
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            // Paces the polling, and notices a JobManager that exits meanwhile.
            jobManager.waitFor(100, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        throw new IllegalStateException(
                count + " TaskManagers did not register within " + timeout + ": " + last);
    }

    static int countOf(String text, String needle) {
        int count = 0;
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            count++;
        }
        return count;
    }

    @Override
    public void close() throws InterruptedException {
        for (Process process : taskManagers) {
            if (process == null) {
                continue;
            }
            process.destroyForcibly();
            process.waitFor();
        }
        if (jobManager != null) {
            jobManager.destroyForcibly();
            jobManager.waitFor();
        }
    }

    /** The log's lines that name an exception or an error, the last 10 of them, or its end. */
    static String problemsIn(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            List<String> problems =
                    lines.stream()
                            .filter(line -> line.contains("Exception") || line.contains("ERROR"))
                            .filter(line -> !line.startsWith("\tat "))
                            .toList();
            List<String> shown = problems.isEmpty() ? lines : problems;
            return String.join(
                    System.lineSeparator(),
                    shown.subList(Math.max(0, shown.size() - 10), shown.size()));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
