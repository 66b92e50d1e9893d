package dev.weir.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.jdbc.PostgresConnectionConfig;
import dev.weir.kafka.testkit.BrokerProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KafkaToPostgres against a real broker (a child JVM) and a real PostgreSQL (embedded binaries):
 * the table holds each customer's exact total, also after a second run on the same checkpoints.
 */
class KafkaToPostgresTest {
    static final String TOPIC = "orders";
    @TempDir Path dir;

    @Test
    void theTableHoldsEachCustomersTotal() throws Exception {
        try (BrokerProcess broker =
                        BrokerProcess.start(
                                dir.resolve("broker"), BrokerProcess.thisClassPath(), Map.of());
                EmbeddedPostgres postgres = EmbeddedPostgres.builder().start()) {
            String bootstrap = broker.bootstrapServers();
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
            }
            Map<String, Long> expected = new TreeMap<>();
            Random random = new Random(5);
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            AtomicReference<Exception> failed = new AtomicReference<>();
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 20_000; i++) {
                    String customer = "customer-" + random.nextInt(50);
                    long amount = 1 + random.nextInt(1_000);
                    expected.merge(customer, amount, Long::sum);
                    producer.send(
                            new ProducerRecord<>(TOPIC, customer, customer + "," + amount),
                            (metadata, error) -> {
                                if (error != null) {
                                    failed.compareAndSet(null, error);
                                }
                            });
                }
                producer.flush();
            }
            assertThat(failed.get()).isNull();
            String url = postgres.getJdbcUrl("postgres", "postgres");
            KafkaToPostgres.createTable(url, "postgres", "postgres");
            PostgresConnectionConfig database =
                    PostgresConnectionConfig.of(url).credentials("postgres", "postgres");
            Path checkpoints = dir.resolve("chk");

            KafkaToPostgres.pipeline(bootstrap, TOPIC, database, checkpoints).run();
            assertThat(totals(postgres)).isEqualTo(expected);

            // Started again on the same checkpoints and table: the totals stay as they are.
            KafkaToPostgres.pipeline(bootstrap, TOPIC, database, checkpoints).run();
            assertThat(totals(postgres)).isEqualTo(expected);
        }
    }

    private static Map<String, Long> totals(EmbeddedPostgres postgres) throws Exception {
        Map<String, Long> totals = new TreeMap<>();
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery(
                                "SELECT customer, total FROM " + KafkaToPostgres.TABLE)) {
            while (rows.next()) {
                totals.put(rows.getString(1), rows.getLong(2));
            }
        }
        return totals;
    }
}
