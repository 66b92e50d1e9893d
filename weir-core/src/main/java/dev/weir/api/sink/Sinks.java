package dev.weir.api.sink;

import dev.weir.api.Guarantee;
import java.io.PrintStream;

/** Built-in sinks. */
public final class Sinks {
    private Sinks() {}

    /**
     * Collects records in memory; read them with {@link CollectSink#results()}.
     *
     * @param <T> the record type
     * @return a new sink; keep the reference to read the results
     */
    public static <T> CollectSink<T> collect() {
        return new CollectSink<>();
    }

    /**
     * Counts and discards records; read the total with {@link CountingSink#count()}.
     *
     * @param <T> the record type
     * @return a new sink; keep the reference to read the count
     */
    public static <T> CountingSink<T> counting() {
        return new CountingSink<>();
    }

    /** A record handler for {@link #callback}. */
    @FunctionalInterface
    public interface Callback<T> extends java.io.Serializable {
        /**
         * Handles one record; called on the sink task's thread.
         *
         * @param record the record
         * @throws Exception to fail the task; the job restarts or stops as its restart policy says
         */
        void accept(T record) throws Exception;
    }

    /**
     * Calls {@code callback} for every record; at-least-once (a replay calls it again), and the
     * analyzer says so.
     *
     * @param <T> the record type
     * @param callback called for every record, on each sink subtask's thread; it must be
     *     thread-safe if the sink runs at a parallelism above 1
     * @return the sink
     */
    public static <T> Sink<T> callback(Callback<T> callback) {
        return new Sink<>() {
            @Override
            public String kind() {
                return "callback";
            }

            @Override
            public Guarantee guarantee() {
                return Guarantee.AT_LEAST_ONCE;
            }

            @Override
            public SinkWriter<T> createWriter(SinkContext context) {
                return callback::accept;
            }
        };
    }

    /**
     * Prints each record's {@code toString()} on standard output; at-least-once.
     *
     * @param <T> the record type
     * @return the sink
     */
    public static <T> Sink<T> console() {
        return console("");
    }

    /**
     * Prints {@code prefix} and each record's {@code toString()} on standard output.
     *
     * @param <T> the record type
     * @param prefix printed before each record, such as {@code "out> "}
     * @return the sink
     */
    public static <T> Sink<T> console(String prefix) {
        return console(prefix, null);
    }

    /**
     * Prints {@code prefix} and each record's {@code toString()} on {@code target} (standard output
     * if null); at-least-once.
     *
     * @param <T> the record type
     * @param prefix printed before each record
     * @param target where to print, or null for standard output
     * @return the sink
     */
    public static <T> Sink<T> console(String prefix, PrintStream target) {
        return new Sink<>() {
            @Override
            public String kind() {
                return "console";
            }

            @Override
            public Guarantee guarantee() {
                return Guarantee.AT_LEAST_ONCE;
            }

            @Override
            public SinkWriter<T> createWriter(SinkContext context) {
                PrintStream out = target != null ? target : System.out;
                return record -> out.println(prefix + record);
            }
        };
    }
}
