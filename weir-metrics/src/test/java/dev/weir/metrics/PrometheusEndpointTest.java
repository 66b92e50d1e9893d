package dev.weir.metrics;

import static dev.weir.metrics.PrometheusEndpoint.CONTENT_TYPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.JobHandle;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Real HTTP requests against the endpoint of a finished job (its figures stay readable). */
class PrometheusEndpointTest {
    private static JobHandle job;
    private static PrometheusEndpoint endpoint;
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void startJobAndEndpoint() throws Exception {
        job = WeirMetricsTest.boundedJob("scraped");
        endpoint = WeirMetrics.prometheus(job, 0);
        job.await(Duration.ofMinutes(2));
    }

    @AfterAll
    static void stop() {
        endpoint.close();
    }

    private static HttpResponse<String> send(String method, String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + endpoint.port() + path);
        HttpRequest request =
                HttpRequest.newBuilder(uri)
                        .timeout(Duration.ofSeconds(30))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void getMetricsServesThePrometheusTextFormatWithWeirsNames() throws Exception {
        HttpResponse<String> response = send("GET", "/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValue("text/plain; version=0.0.4; charset=utf-8");
        String body = response.body();
        assertThat(body)
                .contains("# TYPE weir_step_records_in_total counter")
                .contains(
                        "weir_step_records_out_total{job=\"scraped\",step=\"evens\",subtask=\"0\"}")
                .contains("weir_task_busy_time_seconds_total{job=\"scraped\",task=")
                .contains("weir_task_backpressured_time_seconds_total")
                .contains("weir_task_idle_time_seconds_total")
                .contains("# TYPE weir_channel_fill gauge")
                .contains("weir_channel_queued_items")
                .contains("weir_channel_queued_bytes")
                .contains("weir_job_restarts_total{job=\"scraped\"} 0.0")
                .contains("weir_checkpoints_completed_total{job=\"scraped\"} 0.0")
                .contains("weir_checkpoint_size_bytes")
                .contains("weir_checkpoint_duration_seconds")
                .contains("weir_source_lag{job=\"scraped\",step=\"numbers\",subtask=\"1\"}")
                .contains(
                        "weir_source_alignment_paused_time_seconds_total{job=\"scraped\",step=\"numbers\",subtask=\"1\"}");
        assertThat(endpoint.uri()).hasHost("127.0.0.1").hasPath("/metrics");
    }

    @Test
    void theStepCountsInTheScrapeAreTheJobsCounts() throws Exception {
        String body = send("GET", "/metrics").body();
        double evensOut = 0;
        for (String line : body.split("\n")) {
            if (line.startsWith("weir_step_records_out_total{job=\"scraped\",step=\"evens\"")) {
                evensOut += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        assertThat(evensOut).isEqualTo(5_000);
    }

    @Test
    void headIsAnsweredLikeGetWithoutABody() throws Exception {
        HttpResponse<String> response = send("HEAD", "/metrics");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue(CONTENT_TYPE);
        assertThat(response.body()).isEmpty();
        assertThat(send("HEAD", "/x").statusCode()).isEqualTo(404);
    }

    @Test
    void everyMethodButGetAndHeadIsRefusedWith405() throws Exception {
        for (String method : new String[] {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
            HttpResponse<String> response = send(method, "/metrics");
            assertThat(response.statusCode()).as(method).isEqualTo(405);
            assertThat(response.headers().firstValue("Allow")).as(method).hasValue("GET, HEAD");
            assertThat(response.body()).doesNotContain("weir_");
        }
    }

    @Test
    void anyOtherPathIs404() throws Exception {
        for (String path : new String[] {"/", "/metrics/", "/metrics/../etc/passwd", "/x"}) {
            HttpResponse<String> response = send("GET", path);
            assertThat(response.statusCode()).as(path).isEqualTo(404);
            assertThat(response.body()).doesNotContain("weir_");
        }
    }

    /** A raw HTTP/1.1 request with the given Host header; returns the status line. */
    private static String statusWithHost(String host) throws IOException {
        try (Socket socket =
                new Socket(java.net.InetAddress.getLoopbackAddress(), endpoint.port())) {
            socket.setSoTimeout(30_000);
            String request =
                    "GET /metrics HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            BufferedReader reader =
                    new BufferedReader(
                            new InputStreamReader(
                                    socket.getInputStream(), StandardCharsets.US_ASCII));
            return reader.readLine();
        }
    }

    @Test
    void aHostThatIsNotALoopbackNameIsRefusedWith403() throws Exception {
        int port = endpoint.port();
        assertThat(statusWithHost("evil.example:" + port)).contains(" 403 ");
        assertThat(statusWithHost("127.0.0.1.evil.example")).contains(" 403 ");
        for (String bad : new String[] {"abc", "99999", "0", "65536", "", "-1", "+80"}) {
            assertThat(statusWithHost("127.0.0.1:" + bad)).as(bad).contains(" 403 ");
        }
        assertThat(statusWithHost("localhost:65535")).contains(" 200 ");
        assertThat(statusWithHost("127.0.0.1")).contains(" 200 ");
        assertThat(statusWithHost("127.0.0.1:" + port)).contains(" 200 ");
        assertThat(statusWithHost("localhost:" + port)).contains(" 200 ");
        assertThat(statusWithHost("[::1]:" + port)).contains(" 200 ");
    }

    /**
     * Connections that send a request line and then nothing (each would hold a thread reading its
     * headers), or headers announcing a body and then nothing, more of them than the endpoint has
     * threads: a scrape still gets its answer, and the stalled connections are closed by the server
     * once their deadline has passed.
     */
    @Test
    void stalledRequestsDoNotStarveAScrape() throws Exception {
        java.util.List<Socket> stalled = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < PrometheusEndpoint.THREADS + 2; i++) {
                Socket socket =
                        new Socket(java.net.InetAddress.getLoopbackAddress(), endpoint.port());
                socket.getOutputStream()
                        .write(
                                (i % 2 == 0
                                                ? "GET /metrics HTTP/1.1\r\n"
                                                : "POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                        + "Content-Length: 1000\r\n\r\n")
                                        .getBytes(StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                stalled.add(socket);
            }
            long start = System.nanoTime();
            // Before the fix this waited as long as the stalled connections stayed open.
            assertThat(statusWithHost("127.0.0.1:" + endpoint.port())).contains(" 200 ");
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            // Each thread is freed within the deadline: two rounds of stalled requests at most.
            assertThat(took)
                    .isLessThan(PrometheusEndpoint.REQUEST_DEADLINE.multipliedBy(2).plusSeconds(3));
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
                } catch (java.net.SocketException reset) {
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
    void aPortInUseIsRefusedWithTheFix() throws Exception {
        try (ServerSocket taken =
                new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> WeirMetrics.prometheus(job, taken.getLocalPort()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("pass another port, or 0");
        }
    }
}
