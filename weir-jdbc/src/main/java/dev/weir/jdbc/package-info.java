/**
 * PostgreSQL sinks: {@link dev.weir.jdbc.PostgresTwoPhaseCommitSink} (exactly-once through {@code
 * PREPARE TRANSACTION}) and {@link dev.weir.jdbc.PostgresUpsertSink} (idempotent upserts), writing
 * rows described by a {@link dev.weir.jdbc.TableMapping}.
 */
package dev.weir.jdbc;
