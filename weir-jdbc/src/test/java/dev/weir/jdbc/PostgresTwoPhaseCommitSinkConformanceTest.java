package dev.weir.jdbc;

import dev.weir.api.sink.Sink;
import dev.weir.sink.ExactlyOnceSinkConformance;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;

/** The sinks conformance suite, for the two-phase-commit sink against a real PostgreSQL. */
class PostgresTwoPhaseCommitSinkConformanceTest extends ExactlyOnceSinkConformance {
    final EmbeddedPostgres server = TestPostgres.shared();
    String table;

    @BeforeEach
    void createTable() throws Exception {
        table = TestPostgres.freshName("tpc");
        TestPostgres.execute(server, "CREATE TABLE " + table + " (v text NOT NULL)");
    }

    @Override
    protected Sink<String> createSink(Path output) {
        return PostgresTwoPhaseCommitSink.into(
                        TestPostgres.config(server),
                        TableMapping.<String>of(table, List.of("v"), v -> new Object[] {v}))
                .batchSize(100)
                .transactionIdPrefix("weir:" + table);
    }

    @Override
    protected List<String> readCommitted(Path output) throws Exception {
        return TestPostgres.query(server, "SELECT v FROM " + table);
    }

    @Override
    protected List<String> dangling(Path output) throws Exception {
        return TestPostgres.prepared(server, "weir:" + table);
    }
}
