package dev.weir.examples;

import dev.weir.api.Guarantee;
import dev.weir.api.Pipeline;
import dev.weir.api.checkpoint.CheckpointConfig;
import dev.weir.api.codec.Codecs;
import dev.weir.jdbc.PostgresConnectionConfig;
import dev.weir.jdbc.PostgresUpsertSink;
import dev.weir.jdbc.TableMapping;
import dev.weir.kafka.KafkaDeserializer;
import dev.weir.kafka.KafkaSource;
import dev.weir.kafka.StartingOffsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * A running total per customer from a Kafka topic of orders, kept exactly-once in a PostgreSQL
 * table.
 *
 * <p>Shows {@link KafkaSource} (offsets in Weir's checkpoints, {@code read_committed}; here {@code
 * bounded()}, so the job ends at the end offsets it saw at start), a keyed running total in a
 * {@code ValueState<Long>}, and {@link PostgresUpsertSink}: each checkpoint's rows are upserted by
 * customer in one transaction with the checkpoint id, and a replay after a failure writes the same
 * totals again, so the table is exactly-once. Each Kafka record's value is {@code customer,amount};
 * the table is {@code order_totals(customer text primary key, total bigint)}.
 *
 * <p>Run: {@code java -cp ... dev.weir.examples.KafkaToPostgres <bootstrap servers> <topic> <jdbc
 * url> <user> <password> <checkpoint dir>}; drop {@code bounded()} to keep following the topic.
 */
public final class KafkaToPostgres {
    /** The table the totals go to. */
    public static final String TABLE = "order_totals";

    /** A customer's total so far. */
    public record Total(String customer, long total) {}

    private KafkaToPostgres() {}

    /** Builds the pipeline from {@code topic} at {@code bootstrapServers} into {@code database}. */
    public static Pipeline pipeline(
            String bootstrapServers,
            String topic,
            PostgresConnectionConfig database,
            Path checkpoints) {
        Pipeline pipeline =
                Pipeline.create("order-totals")
                        .parallelism(2)
                        .checkpointing(
                                CheckpointConfig.exactlyOnce(Duration.ofMillis(500), checkpoints));
        TableMapping<Total> rows =
                TableMapping.<Total>of(
                                TABLE,
                                List.of("customer", "total"),
                                total -> new Object[] {total.customer(), total.total()})
                        .key("customer");
        pipeline.source(
                        "orders",
                        KafkaSource.topics(bootstrapServers, KafkaDeserializer.strings(), topic)
                                .startingAt(StartingOffsets.earliest())
                                .bounded())
                .keyBy(order -> order.substring(0, order.indexOf(',')))
                .<Long, Total>process(
                        "total",
                        Codecs.LONG,
                        (customer, order, total, out) -> {
                            long amount = Long.parseLong(order.substring(order.indexOf(',') + 1));
                            long next = (total.value() == null ? 0 : total.value()) + amount;
                            total.update(next);
                            out.collect(new Total(customer, next));
                        })
                .sink("totals", PostgresUpsertSink.into(database, rows));
        return pipeline.requireGuarantee(Guarantee.EXACTLY_ONCE);
    }

    /** Creates the {@value #TABLE} table if it is missing. */
    public static void createTable(String jdbcUrl, String user, String password)
            throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, user, password);
                Statement statement = connection.createStatement()) {
            statement.execute(
                    "CREATE TABLE IF NOT EXISTS "
                            + TABLE
                            + " (customer text PRIMARY KEY, total bigint NOT NULL)");
        }
    }

    /** Sums the orders of Kafka topic {@code args[1]} per customer into PostgreSQL. */
    public static void main(String[] args) throws InterruptedException, SQLException {
        if (args.length != 6) {
            System.err.println(
                    "usage: KafkaToPostgres <bootstrap servers> <topic> <jdbc url> <user>"
                            + " <password> <checkpoint dir>");
            System.exit(2);
        }
        createTable(args[2], args[3], args[4]);
        PostgresConnectionConfig database =
                PostgresConnectionConfig.of(args[2]).credentials(args[3], args[4]);
        pipeline(args[0], args[1], database, Path.of(args[5])).run();
        System.out.println("totals are in table " + TABLE);
    }
}
