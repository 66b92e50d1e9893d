package dev.weir.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.weir.api.JobHandle;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * A Prometheus scrape endpoint for one job: {@code GET /metrics} on the loopback interface answers
 * with the job's meters in Prometheus' text format ({@code HEAD /metrics} with the same headers and
 * no body); any other method gets 405, any other path 404, and a {@code Host} that is not {@code
 * 127.0.0.1}, {@code localhost} or {@code [::1]}, with no port or a port from 1 to 65535, 403.
 * Read-only: it serves figures and nothing else.
 *
 * <h2>How it is called</h2>
 *
 * {@link WeirMetrics#prometheus} starts it; requests are answered on four daemon threads of its
 * own, each reading the job's counters then. Each request has 3 seconds from its first byte to the
 * end of its answer: a client that opens a connection and stops sending (or stops reading) is cut
 * off then, so stalled connections cannot keep a scrape waiting for longer. {@link #close} stops
 * the server and removes the meters (until then the server's dispatcher thread keeps the JVM alive,
 * as any listening server does). Reachable from this machine only: put a proxy in front of it to
 * scrape from elsewhere.
 */
public final class PrometheusEndpoint implements AutoCloseable {
    /** What Prometheus' text exposition format 0.0.4 is served as. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Threads answering requests. */
    static final int THREADS = 64;

    /** How long one request may take, from reading its first line to writing its last byte. */
    static final Duration REQUEST_DEADLINE = Duration.ofSeconds(3);

    private final ExchangeThreads threads;

    private final HttpServer server;
    private final PrometheusMeterRegistry registry;
    private final MeterBinding binding;

    private PrometheusEndpoint(
            HttpServer server,
            ExchangeThreads threads,
            PrometheusMeterRegistry registry,
            MeterBinding binding) {
        this.server = server;
        this.threads = threads;
        this.registry = registry;
        this.binding = binding;
    }

    static PrometheusEndpoint start(JobHandle job, int port) throws IOException {
        Objects.requireNonNull(job, "job");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException(
                    "port must be 0 (any free port) to 65535, got " + port);
        }
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MeterBinding binding = WeirMetrics.bind(job, registry);
        HttpServer server;
        try {
            server =
                    HttpServer.create(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        } catch (IOException e) {
            binding.close();
            registry.close();
            throw new IOException(
                    "cannot serve metrics of job '"
                            + job.name()
                            + "' on 127.0.0.1:"
                            + port
                            + " ("
                            + e.getMessage()
                            + "); pass another port, or 0 for any free one",
                    e);
        }
        ExchangeThreads threads = new ExchangeThreads("weir-prometheus", THREADS, REQUEST_DEADLINE);
        server.setExecutor(threads);
        PrometheusEndpoint endpoint = new PrometheusEndpoint(server, threads, registry, binding);
        server.createContext("/", endpoint::handle);
        server.start();
        return endpoint;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().close(); // a request body is never read
            if (!isLoopbackHost(exchange.getRequestHeaders().getFirst("Host"))) {
                // A page on another site that rebinds its name to 127.0.0.1 sends its own name.
                respond(exchange, 403, "forbidden: Host must be 127.0.0.1, localhost or [::1]\n");
            } else if (!exchange.getRequestURI().getPath().equals("/metrics")) {
                respond(exchange, 404, "not found: only /metrics is served\n");
            } else if (!exchange.getRequestMethod().equals("GET")
                    && !exchange.getRequestMethod().equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                respond(exchange, 405, "method not allowed: only GET and HEAD\n");
            } else {
                exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
                send(exchange, 200, registry.scrape().getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * True for {@code 127.0.0.1}, {@code localhost} or {@code [::1]}, without a port or with one
     * from 1 to 65535.
     */
    static boolean isLoopbackHost(String host) {
        if (host == null) {
            return false;
        }
        String name = host;
        int colon = host.lastIndexOf(':');
        if (colon >= 0 && colon > host.lastIndexOf(']')) {
            if (!isPort(host.substring(colon + 1))) {
                return false;
            }
            name = host.substring(0, colon);
        }
        name = name.toLowerCase(java.util.Locale.ROOT);
        return name.equals("127.0.0.1") || name.equals("localhost") || name.equals("[::1]");
    }

    /** True for a port number from 1 to 65535, in decimal digits. */
    static boolean isPort(String port) {
        if (port.isEmpty()
                || port.length() > 5
                || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return false;
        }
        int number = Integer.parseInt(port);
        return number >= 1 && number <= 65_535;
    }

    private static void respond(HttpExchange exchange, int status, String text) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        send(exchange, status, text.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
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
     * The port the endpoint listens on (the one picked when 0 was asked for).
     *
     * @return the port
     */
    public int port() {
        return server.getAddress().getPort();
    }

    /**
     * Where to scrape: {@code http://127.0.0.1:port/metrics}.
     *
     * @return the scrape address
     */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + port() + "/metrics");
    }

    /**
     * The endpoint's own registry, to which the caller may add meters of its own.
     *
     * @return the registry
     */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Stops serving (at once; a scrape in progress is cut off) and removes the meters. */
    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
        binding.close();
        registry.close();
    }
}
