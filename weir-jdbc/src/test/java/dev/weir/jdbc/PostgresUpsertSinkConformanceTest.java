package dev.weir.jdbc;

import dev.weir.api.sink.Sink;
import dev.weir.sink.ExactlyOnceSinkConformance;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;

/**
 * The sinks conformance suite, for the upsert sink against a real PostgreSQL: each record is its
 * own key, so a replay rewrites identical rows and the table ends with every record once.
 */
class PostgresUpsertSinkConformanceTest extends ExactlyOnceSinkConformance {
    final EmbeddedPostgres server = TestPostgres.shared();
    String table;

    @BeforeEach
    void createTable() throws Exception {
        table = TestPostgres.freshName("ups");
        TestPostgres.execute(
                server, "CREATE TABLE " + table + " (v text PRIMARY KEY, written int NOT NULL)");
    }

    @Override
    protected Sink<String> createSink(Path output) {
        return PostgresUpsertSink.into(
                        TestPostgres.config(server),
                        TableMapping.<String>of(
                                        table, List.of("v", "written"), v -> new Object[] {v, 1})
                                .key("v"))
                .batchSize(100);
    }

    @Override
    protected List<String> readCommitted(Path output) throws Exception {
        return TestPostgres.query(server, "SELECT v FROM " + table);
    }

    @Override
    protected List<String> dangling(Path output) {
        return List.of(); // one transaction per upsert batch, committed at once: none can linger
    }
}
