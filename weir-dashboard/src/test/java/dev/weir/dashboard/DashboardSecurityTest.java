package dev.weir.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.weir.api.JobHandle;
import dev.weir.api.Pipeline;
import dev.weir.api.sink.Sinks;
import dev.weir.api.source.Sources;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real HTTP, byte for byte, against the dashboard of a finished job (its figures stay readable).
 */
class DashboardSecurityTest {
    private static JobHandle job;
    private static WeirDashboard dashboard;

    @BeforeAll
    static void start() throws Exception {
        Pipeline pipeline = Pipeline.create("guarded").parallelism(2);
        pipeline.source("numbers", Sources.sequence(1, 1_000))
                .keyBy(n -> n % 4)
                .reduce("sum", Long::sum)
                .sink("out", Sinks.counting());
        WeirDashboard.recordFailures(pipeline);
        job = pipeline.start();
        dashboard = WeirDashboard.start(job, pipeline, 0);
        job.await(Duration.ofMinutes(2));
    }

    @AfterAll
    static void stop() {
        dashboard.close();
    }

    /** Sends {@code request} as is; returns the whole response (the server closes). */
    private static String raw(String request) throws IOException {
        return raw(request.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String raw(byte[] request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), dashboard.port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request);
                out.flush();
            } catch (IOException refusedMidway) {
                // the server may answer and close before reading everything
            }
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    response.write(buffer, 0, n);
                }
            } catch (IOException reset) {
                // a reset after the answer: keep what came
            }
            return response.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static String get(String path, String host) throws IOException {
        return raw("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    }

    private static String get(String path) throws IOException {
        return get(path, "127.0.0.1:" + dashboard.port());
    }

    private static int status(String response) {
        assertThat(response).as("an HTTP response").startsWith("HTTP/1.1 ");
        return Integer.parseInt(response.substring(9, 12));
    }

    private static String body(String response) {
        return response.substring(response.indexOf("\r\n\r\n") + 4);
    }

    @Test
    void thePageItsAssetsAndTheStateAreServed() throws Exception {
        String page = get("/");
        assertThat(status(page)).isEqualTo(200);
        assertThat(page)
                .containsIgnoringCase("Content-Type: text/html; charset=utf-8")
                .containsIgnoringCase("Content-Security-Policy: default-src 'none'")
                .containsIgnoringCase("X-Content-Type-Options: nosniff")
                .contains("<script src=\"app.js\"");
        assertThat(status(get("/app.js"))).isEqualTo(200);
        assertThat(status(get("/app.css"))).isEqualTo(200);

        String state = get("/api/state");
        assertThat(status(state)).isEqualTo(200);
        JsonNode json = new ObjectMapper().readTree(body(state));
        assertThat(json.get("job").asText()).isEqualTo("guarded");
        assertThat(json.get("done").asBoolean()).isTrue();
        assertThat(json.get("figures").asBoolean()).isTrue();
        assertThat(json.get("steps"))
                .extracting(s -> s.get("name").asText())
                .containsExactly("numbers", "sum", "out");
        assertThat(json.get("steps").get(0).get("recordsOut").asLong()).isEqualTo(1_000);
        assertThat(json.get("steps").get(2).get("recordsIn").asLong())
                .isEqualTo(1_000); // reduce emits each running sum
        JsonNode edges = json.get("edges");
        assertThat(edges).hasSize(2);
        assertThat(edges.get(0).get("channel").asBoolean()).isTrue(); // numbers → sum: keyed
        assertThat(edges.get(0).get("channels").asInt()).isEqualTo(4); // 2 × 2 subtasks
        assertThat(edges.get(1).get("channel").asBoolean()).isFalse(); // sum → out: chained
        assertThat(json.at("/guarantee/verdict").asText())
                .isEqualTo("AT_MOST_ONCE"); // no checkpoints
        assertThat(json.at("/guarantee/weakest/name").asText())
                .isEqualTo("checkpointing mode NONE");
        assertThat(json.at("/restarts/count").asInt()).isZero();
        assertThat(json.at("/restarts/causesRecorded").asBoolean()).isTrue();
    }

    @Test
    void pathTraversalAndAnyOtherPathIs404WithoutFileContent() throws Exception {
        String[] payloads = {
            "/../../../../etc/passwd",
            "/..%2f..%2f..%2fetc%2fpasswd",
            "/%2e%2e/%2e%2e/etc/passwd",
            "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
            "/app.js/../../../etc/passwd",
            "/..%5c..%5cetc%5cpasswd",
            "/%252e%252e/etc/passwd",
            "/dev/weir/dashboard/app.js",
            "/WeirDashboard.class",
            "/dev/weir/dashboard/WeirDashboard.class",
            "/app.js%00.html",
            "//etc/passwd",
            "/api/state/../../etc/passwd",
            "/api",
            "/index.html/",
            "/APP.JS",
            "/app.js%2f",
        };
        for (String path : payloads) {
            String response = get(path);
            assertThat(status(response)).as(path).isEqualTo(404);
            assertThat(body(response)).as(path).isEqualTo("not found\n");
            assertThat(response).as(path).doesNotContain("root:").doesNotContain("weir");
        }
        // An absolute-form target is no way around it either.
        String absolute =
                raw(
                        "GET http://127.0.0.1:"
                                + dashboard.port()
                                + "/../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection:"
                                + " close\r\n\r\n");
        assertThat(absolute).doesNotContain("root:");
        assertThat(status(absolute)).isBetween(400, 404);
    }

    @Test
    void everyMethodButGetAndHeadIs405() throws Exception {
        for (String method :
                new String[] {
                    "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "FOO"
                }) {
            String response =
                    raw(
                            method
                                    + " /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length:"
                                    + " 0\r\nConnection: close\r\n\r\n");
            assertThat(status(response)).as(method).isEqualTo(405);
            assertThat(response).as(method).containsIgnoringCase("Allow: GET, HEAD");
            assertThat(response).as(method).doesNotContain("\"steps\"");
        }
        String head = raw("HEAD / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(status(head)).isEqualTo(200);
        assertThat(body(head)).isEmpty();
    }

    @Test
    void aHostOrOriginThatIsNotLoopbackIs403() throws Exception {
        int port = dashboard.port();
        for (String host :
                new String[] {
                    "evil.example:" + port,
                    "127.0.0.1.evil.example",
                    "localhost.evil.example:" + port,
                    "127.0.0.2:" + port,
                    "0.0.0.0:" + port,
                    "127.0.0.1:" + port + "@evil.example",
                    "",
                }) {
            String response = get("/api/state", host);
            assertThat(status(response)).as(host).isIn(400, 403);
            assertThat(response).as(host).doesNotContain("\"steps\"");
        }
        for (String bad : new String[] {"abc", "99999", "0", "65536"}) {
            String response = get("/api/state", "127.0.0.1:" + bad);
            assertThat(status(response)).as(bad).isEqualTo(403);
            assertThat(response).as(bad).doesNotContain("\"steps\"");
        }
        assertThat(status(raw("GET / HTTP/1.1\r\nConnection: close\r\n\r\n")))
                .as("no Host")
                .isIn(400, 403);
        for (String host :
                new String[] {"127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port}) {
            assertThat(status(get("/api/state", host))).as(host).isEqualTo(200);
        }
        for (String origin :
                new String[] {"http://evil.example", "https://127.0.0.1.evil.example", "null"}) {
            String response =
                    raw(
                            "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:"
                                    + port
                                    + "\r\nOrigin: "
                                    + origin
                                    + "\r\nConnection: close\r\n\r\n");
            assertThat(status(response)).as(origin).isEqualTo(403);
            assertThat(response).as(origin).doesNotContain("\"steps\"");
        }
        String sameOrigin =
                raw(
                        "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:"
                                + port
                                + "\r\nOrigin: http://127.0.0.1:"
                                + port
                                + "\r\nConnection: close\r\n\r\n");
        assertThat(status(sameOrigin)).isEqualTo(200);
    }

    @Test
    void largeRequestsAreRefusedAndTheServerStaysUp() throws Exception {
        // A 10 MB body on a GET and on a POST.
        byte[] big = new byte[10 * 1024 * 1024];
        java.util.Arrays.fill(big, (byte) 'x');
        for (String method : new String[] {"GET", "POST"}) {
            byte[] head =
                    (method
                                    + " /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                                    + big.length
                                    + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII);
            byte[] request = new byte[head.length + big.length];
            System.arraycopy(head, 0, request, 0, head.length);
            System.arraycopy(big, 0, request, head.length, big.length);
            String response = raw(request);
            assertThat(status(response)).as(method).isBetween(400, 499);
        }
        // 64 KiB of headers, in one header and in many.
        String one = "X-Big: " + "y".repeat(64 * 1024) + "\r\n";
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 150; i++) {
            many.append("X-H").append(i).append(": ").append("z".repeat(500)).append("\r\n");
        }
        for (String headers : new String[] {one, many.toString()}) {
            String response =
                    raw(
                            "GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    + headers
                                    + "Connection: close\r\n\r\n");
            if (!response.isEmpty()) { // the JDK server may also just close the connection
                assertThat(status(response)).isBetween(400, 499);
            }
            assertThat(response).doesNotContain("\"steps\"");
        }
        // A request line of 100 KiB.
        String longLine = get("/" + "a".repeat(100 * 1024));
        if (!longLine.isEmpty()) {
            assertThat(status(longLine)).isBetween(400, 499);
        }
        // Still serving.
        assertThat(status(get("/api/state"))).isEqualTo(200);
    }

    @Test
    void aPortInUseIsRefusedWithTheFix() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Pipeline pipeline = Pipeline.create("guarded");
            pipeline.source("s", Sources.sequence(1, 1)).sink("k", Sinks.counting());
            assertThatThrownBy(() -> WeirDashboard.start(job, pipeline, taken.getLocalPort()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("pass another port, or 0");
        }
    }

    @Test
    void hostNamesAreCheckedExactly() {
        assertThat(WeirDashboard.isLoopbackHost("127.0.0.1")).isTrue();
        assertThat(WeirDashboard.isLoopbackHost("LOCALHOST:80")).isTrue();
        assertThat(WeirDashboard.isLoopbackHost("[::1]")).isTrue();
        assertThat(WeirDashboard.isLoopbackHost("localhost:")).isFalse();
        assertThat(WeirDashboard.isLoopbackHost("localhost:8x")).isFalse();
        assertThat(WeirDashboard.isLoopbackHost("[::1]x")).isFalse();
        assertThat(WeirDashboard.isLoopbackHost("localhost:65535")).isTrue();
        assertThat(WeirDashboard.isLoopbackHost("localhost:1")).isTrue();
        for (String port : new String[] {"0", "65536", "99999", "123456", "abc", "-1", "+80"}) {
            assertThat(WeirDashboard.isLoopbackHost("127.0.0.1:" + port)).as(port).isFalse();
        }
        assertThat(WeirDashboard.isLoopbackOrigin("http://localhost:8080")).isTrue();
        assertThat(WeirDashboard.isLoopbackOrigin("https://localhost:8080")).isFalse();
        assertThat(WeirDashboard.isLoopbackOrigin("http://localhost:8080/x")).isFalse();
    }

    /**
     * Connections that send a request line and then nothing (each would hold a thread reading its
     * headers), or headers announcing a body and then nothing, more of them than the dashboard has
     * threads: the page still gets its answer, and the stalled connections are closed by the server
     * once their deadline has passed.
     */
    @Test
    void stalledRequestsDoNotStarveThePage() throws Exception {
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < WeirDashboard.THREADS + 2; i++) {
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), dashboard.port());
                socket.getOutputStream()
                        .write(
                                (i % 2 == 0
                                                ? "GET /api/state HTTP/1.1\r\n"
                                                : "POST /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                        + "Content-Length: 1000\r\n\r\n")
                                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                stalled.add(socket);
            }
            long start = System.nanoTime();
            // Before the fix this waited as long as the stalled connections stayed open.
            assertThat(status(get("/api/state"))).isEqualTo(200);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            // Each thread is freed within the deadline: two rounds of stalled requests at most.
            assertThat(took)
                    .isLessThan(WeirDashboard.REQUEST_DEADLINE.multipliedBy(2).plusSeconds(3));
            for (int i = 0; i < stalled.size(); i++) {
                Socket socket = stalled.get(i);
                socket.setSoTimeout(30_000); // a read that times out fails the test
                // The server hangs up (end of stream, or a reset): without an answer where the
                // headers never ended; where a body never came, perhaps after refusing it.
                byte[] got;
                try {
                    got = socket.getInputStream().readAllBytes();
                } catch (java.net.SocketTimeoutException stillOpen) {
                    throw new AssertionError(
                            "stalled connection " + i + " is still open", stillOpen);
                } catch (SocketException reset) {
                    got = new byte[0];
                }
                if (i % 2 == 0) {
                    assertThat(got).as("connection %d", i).isEmpty();
                }
            }
        } finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
    }

    @Test
    void aJobIsRefusedWithAPipelineOfAnotherName() {
        Pipeline other = Pipeline.create("other");
        other.source("s", Sources.sequence(1, 1)).sink("k", Sinks.counting());
        assertThatThrownBy(() -> WeirDashboard.start(job, other, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job 'guarded'")
                .hasMessageContaining("pipeline 'other'");
        assertThatThrownBy(() -> WeirDashboard.start(job, other.plan(), other.guarantee(), null, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("job 'guarded'");
    }

    @Test
    void nullArgumentsAreNamed() {
        Pipeline pipeline = Pipeline.create("guarded");
        pipeline.source("s", Sources.sequence(1, 1)).sink("k", Sinks.counting());
        assertThatThrownBy(() -> WeirDashboard.start(null, pipeline, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("job");
        assertThatThrownBy(() -> WeirDashboard.start(job, (Pipeline) null, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("pipeline");
        assertThatThrownBy(() -> WeirDashboard.start(job, null, pipeline.guarantee(), null, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("plan");
        assertThatThrownBy(() -> WeirDashboard.start(job, pipeline.plan(), null, null, 0))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("guarantee");
        assertThatThrownBy(() -> WeirDashboard.recordFailures(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("pipeline");
    }
}
