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

/**
 * A Prometheus scrape endpoint for one job: {@code GET /metrics} on the loopback interface answers
 * with the job's meters in Prometheus' text format; any other method gets 405 and any other path
 * 404. Read-only: it serves figures and nothing else.
 *
 * <h2>How it is called</h2>
 *
 * {@link WeirMetrics#prometheus} starts it; requests are answered one at a time on the JDK HTTP
 * server's dispatcher thread, each reading the job's counters then; {@link #close} stops the server
 * and removes the meters (until then the server's thread keeps the JVM alive, as any listening
 * server does). Reachable from this machine only: put a proxy in front of it to scrape from
 * elsewhere.
 */
public final class PrometheusEndpoint implements AutoCloseable {
    /** What Prometheus' text exposition format 0.0.4 is served as. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final PrometheusMeterRegistry registry;
    private final MeterBinding binding;

    private PrometheusEndpoint(
            HttpServer server, PrometheusMeterRegistry registry, MeterBinding binding) {
        this.server = server;
        this.registry = registry;
        this.binding = binding;
    }

    static PrometheusEndpoint start(JobHandle job, int port) throws IOException {
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
        PrometheusEndpoint endpoint = new PrometheusEndpoint(server, registry, binding);
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
            } else if (!exchange.getRequestMethod().equals("GET")) {
                exchange.getResponseHeaders().set("Allow", "GET");
                respond(exchange, 405, "method not allowed: only GET\n");
            } else {
                exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
                send(exchange, 200, registry.scrape().getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    /** True for {@code 127.0.0.1}, {@code localhost} or {@code [::1]}, with or without a port. */
    static boolean isLoopbackHost(String host) {
        if (host == null) {
            return false;
        }
        String name = host;
        int colon = host.lastIndexOf(':');
        if (colon >= 0 && colon > host.lastIndexOf(']')) {
            name = host.substring(0, colon);
        }
        name = name.toLowerCase(java.util.Locale.ROOT);
        return name.equals("127.0.0.1") || name.equals("localhost") || name.equals("[::1]");
    }

    private static void respond(HttpExchange exchange, int status, String text) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        send(exchange, status, text.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
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
        binding.close();
        registry.close();
    }
}
