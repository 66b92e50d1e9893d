package dev.weir.dashboard;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.weir.api.GuaranteeReport;
import dev.weir.api.JobHandle;
import dev.weir.api.JobListener;
import dev.weir.api.Pipeline;
import dev.weir.api.plan.PipelinePlan;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A live, read-only web page for one running job: its graph with each edge coloured by how full its
 * channels are (backpressure), throughput per step as sparklines, the checkpoints as a timeline
 * (duration, size, alignment), restarts with their causes, and the end-to-end guarantee with its
 * weakest link.
 *
 * <h2>How to use it</h2>
 *
 * <pre>{@code
 * Pipeline pipeline = Pipeline.create("orders");   // ... sources, steps, sinks ...
 * WeirDashboard.recordFailures(pipeline);          // optional: restarts with their causes
 * JobHandle job = pipeline.start();
 * try (WeirDashboard dashboard = WeirDashboard.start(job, pipeline, 8081)) {
 *     System.out.println("dashboard: " + dashboard.uri());
 *     job.await();
 * }
 * }</pre>
 *
 * <h2>What it serves, and to whom</h2>
 *
 * Off unless started. It listens on the loopback interface only and serves a fixed set of paths:
 * {@code /} (the page), {@code /app.js}, {@code /app.css} (both from this jar: no file system, no
 * CDN) and {@code /api/state} (JSON, read from {@link JobHandle#metrics()}, {@link
 * JobHandle#checkpointStats()} and the guarantee at each request; the page polls it twice a
 * second). It has no job control. It answers 404 to any other path (compared as sent, before any
 * decoding), 405 to any method but GET and HEAD, 403 to a {@code Host} that is not {@code
 * 127.0.0.1}, {@code localhost} or {@code [::1]} (a page elsewhere that rebinds its name to
 * 127.0.0.1 sends its own name) or whose port is not a number from 1 to 65535, and to an {@code
 * Origin} that is not such a name, 400 to a request with a body, and 431 to headers above {@value
 * #MAX_HEADER_BYTES} bytes.
 *
 * <p>Requests are answered on four daemon threads of its own. Each request has 3 seconds from its
 * first byte to the end of its answer: a client that opens a connection and stops sending (or stops
 * reading) is cut off then, so stalled connections cannot keep the page waiting for longer. {@link
 * #close} stops it.
 */
public final class WeirDashboard implements AutoCloseable {
    /** Request headers larger than this, summed, are refused with 431. */
    public static final int MAX_HEADER_BYTES = 16 * 1024;

    /** Threads answering requests. */
    static final int THREADS = 64;

    /** How long one request may take, from reading its first line to writing its last byte. */
    static final Duration REQUEST_DEADLINE = Duration.ofSeconds(3);

    private static final String PREFIX = "/dev/weir/dashboard/";

    /** The whole set of static paths, and what each serves. */
    private static final Map<String, Asset> ASSETS =
            Map.of(
                    "/", new Asset("index.html", "text/html; charset=utf-8"),
                    "/index.html", new Asset("index.html", "text/html; charset=utf-8"),
                    "/app.js", new Asset("app.js", "text/javascript; charset=utf-8"),
                    "/app.css", new Asset("app.css", "text/css; charset=utf-8"));

    private static final String STATE_PATH = "/api/state";

    private record Asset(String resource, String contentType) {}

    private final HttpServer server;
    private final ExchangeThreads threads;
    private final DashboardState state;
    private final Map<String, byte[]> assets;

    private WeirDashboard(
            HttpServer server,
            ExchangeThreads threads,
            DashboardState state,
            Map<String, byte[]> assets) {
        this.server = server;
        this.threads = threads;
        this.state = state;
        this.assets = assets;
    }

    /**
     * Makes {@code pipeline} keep its failures and their causes for the dashboard; call it after
     * the pipeline's {@link Pipeline#listener listener} is set (that one still hears every call)
     * and before {@link Pipeline#start()}. Without it the dashboard shows how many restarts there
     * were, not why.
     *
     * @param pipeline a pipeline not yet started
     * @return the log now installed as the pipeline's listener
     */
    public static FailureLog recordFailures(Pipeline pipeline) {
        Objects.requireNonNull(pipeline, "pipeline");
        JobListener current = pipeline.plan().settings().listener();
        if (current instanceof FailureLog log) {
            return log;
        }
        FailureLog log = new FailureLog(current);
        pipeline.listener(log);
        return log;
    }

    /**
     * Serves the dashboard of {@code job}, started from {@code pipeline}, at {@code
     * http://127.0.0.1:port/}.
     *
     * @param job the running job
     * @param pipeline the pipeline it was started from: its steps and guarantee are shown, and its
     *     {@link #recordFailures failure log}, if it has one
     * @param port the port; 0 picks a free one ({@link #port()})
     * @return the running dashboard
     * @throws IOException if the port cannot be bound
     * @throws IllegalArgumentException if the job's name is not the pipeline's (it was started from
     *     another pipeline)
     */
    public static WeirDashboard start(JobHandle job, Pipeline pipeline, int port)
            throws IOException {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(pipeline, "pipeline");
        PipelinePlan plan = pipeline.plan();
        FailureLog log = plan.settings().listener() instanceof FailureLog l ? l : (FailureLog) null;
        return start(job, plan, pipeline.guarantee(), log, port);
    }

    /**
     * Serves the dashboard of {@code job} from its parts (for a caller that keeps the plan rather
     * than the pipeline).
     *
     * @param job the running job
     * @param plan the job's plan ({@link Pipeline#plan()}): its steps and edges
     * @param guarantee the pipeline's end-to-end guarantee ({@link Pipeline#guarantee()})
     * @param failures the failure log ({@link #recordFailures}), or null for counts only
     * @param port the port; 0 picks a free one
     * @return the running dashboard
     * @throws IOException if the port cannot be bound
     * @throws IllegalArgumentException if the job's name is not the plan's (it was started from
     *     another pipeline)
     */
    public static WeirDashboard start(
            JobHandle job,
            PipelinePlan plan,
            GuaranteeReport guarantee,
            FailureLog failures,
            int port)
            throws IOException {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(guarantee, "guarantee");
        if (!job.name().equals(plan.name())) {
            throw new IllegalArgumentException(
                    "job '"
                            + job.name()
                            + "' was not started from pipeline '"
                            + plan.name()
                            + "': pass the pipeline (or plan) the job was started from");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException(
                    "port must be 0 (any free port) to 65535, got " + port);
        }
        Map<String, byte[]> assets = loadAssets();
        DashboardState state = new DashboardState(job, plan, guarantee, failures);
        HttpServer server;
        try {
            server =
                    HttpServer.create(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        } catch (IOException e) {
            throw new IOException(
                    "cannot serve the dashboard of job '"
                            + job.name()
                            + "' on 127.0.0.1:"
                            + port
                            + " ("
                            + e.getMessage()
                            + "); pass another port, or 0 for any free one",
                    e);
        }
        ExchangeThreads threads = new ExchangeThreads("weir-dashboard", THREADS, REQUEST_DEADLINE);
        server.setExecutor(threads);
        WeirDashboard dashboard = new WeirDashboard(server, threads, state, assets);
        server.createContext("/", dashboard::handle);
        server.start();
        return dashboard;
    }

    private static Map<String, byte[]> loadAssets() {
        Map<String, byte[]> loaded = new java.util.HashMap<>();
        for (Asset asset : ASSETS.values()) {
            try (InputStream in =
                    WeirDashboard.class.getResourceAsStream(PREFIX + asset.resource)) {
                if (in == null) {
                    throw new IllegalStateException(
                            "the dashboard's " + asset.resource + " is missing from its jar");
                }
                loaded.put(asset.resource, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Map.copyOf(loaded);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Headers request = exchange.getRequestHeaders();
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getRawPath();
            if (headerBytes(request) > MAX_HEADER_BYTES) {
                respond(exchange, 431, "request headers too large\n");
            } else if (!isLoopbackHost(request.getFirst("Host"))) {
                respond(exchange, 403, "forbidden: Host must be 127.0.0.1, localhost or [::1]\n");
            } else if (request.containsKey("Origin")
                    && !isLoopbackOrigin(request.getFirst("Origin"))) {
                respond(exchange, 403, "forbidden: cross-origin requests are refused\n");
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                respond(exchange, 405, "method not allowed: the dashboard is read-only\n");
            } else if (hasBody(request)) {
                respond(exchange, 400, "a GET has no body\n");
            } else if (path.equals(STATE_PATH)) {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                send(exchange, 200, state.toJson());
            } else if (ASSETS.containsKey(path)) {
                Asset asset = ASSETS.get(path);
                exchange.getResponseHeaders().set("Content-Type", asset.contentType);
                send(exchange, 200, assets.get(asset.resource));
            } else {
                respond(exchange, 404, "not found\n");
            }
        }
    }

    private static long headerBytes(Headers headers) {
        long bytes = 0;
        for (Map.Entry<String, List<String>> header : headers.entrySet()) {
            for (String value : header.getValue()) {
                bytes += header.getKey().length() + 4L + (value == null ? 0 : value.length());
            }
        }
        return bytes;
    }

    private static boolean hasBody(Headers headers) {
        String length = headers.getFirst("Content-Length");
        return headers.containsKey("Transfer-Encoding")
                || (length != null && !length.trim().equals("0"));
    }

    /**
     * True for {@code 127.0.0.1}, {@code localhost} or {@code [::1]}, without a port or with one
     * from 1 to 65535.
     */
    static boolean isLoopbackHost(String host) {
        if (host == null) {
            return false;
        }
        String name = host.trim();
        int colon = name.lastIndexOf(':');
        if (colon >= 0 && colon > name.lastIndexOf(']')) {
            String port = name.substring(colon + 1);
            if (port.isEmpty()
                    || port.length() > 5
                    || !port.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(port) < 1
                    || Integer.parseInt(port) > 65_535) {
                return false;
            }
            name = name.substring(0, colon);
        }
        name = name.toLowerCase(Locale.ROOT);
        return name.equals("127.0.0.1") || name.equals("localhost") || name.equals("[::1]");
    }

    /** True for {@code http://} followed by a loopback host ({@link #isLoopbackHost}). */
    static boolean isLoopbackOrigin(String origin) {
        return origin != null
                && origin.startsWith("http://")
                && isLoopbackHost(origin.substring("http://".length()));
    }

    private static void respond(HttpExchange exchange, int status, String text) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        send(exchange, status, text.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        Headers headers = exchange.getResponseHeaders();
        headers.set("Cache-Control", "no-store");
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("X-Frame-Options", "DENY");
        headers.set("Referrer-Policy", "no-referrer");
        headers.set(
                "Content-Security-Policy",
                "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
                        + " img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action"
                        + " 'none'");
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /**
     * The port the dashboard listens on (the one picked when 0 was asked for).
     *
     * @return the port
     */
    public int port() {
        return server.getAddress().getPort();
    }

    /**
     * The page's address, {@code http://127.0.0.1:port/}.
     *
     * @return the address
     */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + port() + "/");
    }

    /** Stops serving at once (a request in progress is cut off); the job is not touched. */
    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
