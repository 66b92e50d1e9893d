package dev.weir.kafka;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.common.utils.ProducerIdAndEpoch;

/**
 * The one place Weir reaches into {@link KafkaProducer}'s internals: reading the producer id and
 * epoch of a live transaction, and resuming a pre-committed transaction in a new producer so that
 * {@code commitTransaction()} commits it.
 *
 * <p>Why: Kafka's public API cannot commit a transaction from another producer instance, and
 * KIP-939 (Kafka-side prepare) is not usable with the clients and brokers Weir meets (see
 * docs/design/006-kafka.md). A transaction is bound to its transactional id and the producer id and
 * epoch the coordinator handed out; a new producer with the same transactional id that
 * <em>claims</em> that id and epoch, instead of calling {@code initTransactions()} (which would
 * abort the transaction), can end it with {@code EndTxn(commit)}. Apache Flink's Kafka connector
 * does the same.
 *
 * <p>What it touches (kafka-clients 4.2): {@code KafkaProducer.transactionManager}; in {@code
 * TransactionManager} the fields {@code producerIdAndEpoch}, {@code transactionStarted}, {@code
 * txnPartitionMap} (its {@code reset()}), the method {@code transitionTo(State)} with states {@code
 * INITIALIZING}, {@code READY}, {@code IN_TRANSACTION}, and the public {@code
 * maybeUpdateTransactionV2Enabled(boolean)} so that the commit uses the transaction protocol the
 * cluster runs (with transactions V2 every transaction ends with an epoch bump). {@link
 * #requireCompatibleClient()} looks them all up; writers call it when they start, so a client
 * upgrade that removes one fails a job at start, not at its first recovery, and {@code
 * TransactionResumerTest} fails the build.
 *
 * <p>Thread-safety: the producer must not be used by another thread while a method here runs.
 */
final class TransactionResumer {
    private static final String STATE_ENUM =
            "org.apache.kafka.clients.producer.internals.TransactionManager$State";

    private TransactionResumer() {}

    /** The producer id and epoch of {@code producer}'s current transaction. */
    static ProducerIdAndEpoch current(KafkaProducer<?, ?> producer) {
        Object manager = transactionManager(producer);
        synchronized (manager) {
            return (ProducerIdAndEpoch) get(manager, "producerIdAndEpoch");
        }
    }

    /**
     * Makes {@code producer} (created with the transaction's transactional id, never initialised,
     * and connected to the cluster, for example by a {@code partitionsFor} call, so that it knows
     * which transaction protocol the cluster runs) the owner of the transaction {@code
     * producerId}/{@code epoch}, in progress, so that {@code commitTransaction()} sends {@code
     * EndTxn(commit)} for it.
     */
    static void resume(KafkaProducer<?, ?> producer, long producerId, short epoch) {
        if (producerId < 0 || epoch < 0) {
            throw new IllegalArgumentException(
                    "cannot resume producer id " + producerId + " epoch " + epoch);
        }
        Object manager = transactionManager(producer);
        synchronized (manager) {
            invoke(
                    manager,
                    "maybeUpdateTransactionV2Enabled",
                    new Class<?>[] {boolean.class},
                    true);
            transitionTo(manager, "INITIALIZING");
            invoke(get(manager, "txnPartitionMap"), "reset", new Class<?>[0]);
            set(manager, "producerIdAndEpoch", new ProducerIdAndEpoch(producerId, epoch));
            transitionTo(manager, "READY");
            transitionTo(manager, "IN_TRANSACTION");
            // EndTxn is sent only for a transaction that wrote something; ours did.
            set(manager, "transactionStarted", true);
        }
    }

    /**
     * Fails with a message naming the client version and what is missing if this kafka-clients does
     * not have every internal member {@link #resume} and {@link #current} use.
     */
    static void requireCompatibleClient() {
        try {
            Class<?> managerClass =
                    Class.forName("org.apache.kafka.clients.producer.internals.TransactionManager");
            KafkaProducer.class.getDeclaredField("transactionManager");
            for (String field :
                    new String[] {"producerIdAndEpoch", "transactionStarted", "txnPartitionMap"}) {
                managerClass.getDeclaredField(field);
            }
            managerClass.getDeclaredMethod("maybeUpdateTransactionV2Enabled", boolean.class);
            Class<?> stateClass = Class.forName(STATE_ENUM);
            managerClass.getDeclaredMethod("transitionTo", stateClass);
            for (String state : new String[] {"INITIALIZING", "READY", "IN_TRANSACTION"}) {
                state(state);
            }
            managerClass.getDeclaredField("txnPartitionMap").getType().getDeclaredMethod("reset");
            ProducerIdAndEpoch.class.getConstructor(long.class, short.class);
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw incompatible(e);
        }
    }

    private static IllegalStateException incompatible(Exception cause) {
        return new IllegalStateException(
                "kafka-clients "
                        + AppInfoParser.getVersion()
                        + " lacks an internal member Weir's exactly-once Kafka sink needs to commit"
                        + " a pre-committed transaction after a restart ("
                        + cause
                        + "); use the kafka-clients version weir-kafka was built with, or adapt"
                        + " dev.weir.kafka.TransactionResumer to this client",
                cause);
    }

    private static Object transactionManager(KafkaProducer<?, ?> producer) {
        Object manager = getDeclared(KafkaProducer.class, producer, "transactionManager");
        if (manager == null
                || !((org.apache.kafka.clients.producer.internals.TransactionManager) manager)
                        .isTransactional()) {
            throw new IllegalArgumentException("the producer is not transactional");
        }
        return manager;
    }

    private static void transitionTo(Object manager, String state) {
        try {
            invoke(
                    manager,
                    "transitionTo",
                    new Class<?>[] {Class.forName(STATE_ENUM)},
                    state(state));
        } catch (ReflectiveOperationException e) {
            throw incompatible(e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object state(String name) throws ReflectiveOperationException {
        Class<? extends Enum> states = (Class<? extends Enum>) Class.forName(STATE_ENUM);
        return Enum.valueOf(states, name);
    }

    private static Object get(Object target, String field) {
        return getDeclared(target.getClass(), target, field);
    }

    private static Object getDeclared(Class<?> type, Object target, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(target);
        } catch (ReflectiveOperationException e) {
            throw incompatible(e);
        }
    }

    private static void set(Object target, String name, Object value) {
        try {
            Field field = target.getClass().getDeclaredField(name);
            field.setAccessible(true);
            field.set(target, value);
        } catch (ReflectiveOperationException e) {
            throw incompatible(e);
        }
    }

    private static Object invoke(Object target, String name, Class<?>[] types, Object... args) {
        try {
            Method method = target.getClass().getDeclaredMethod(name, types);
            method.setAccessible(true);
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw incompatible(e);
        } catch (ReflectiveOperationException e) {
            throw incompatible(e);
        }
    }
}
