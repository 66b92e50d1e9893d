package dev.weir.api.sink;

import dev.weir.api.Guarantee;
import java.io.PrintStream;

/** Built-in sinks. */
public final class Sinks {
    private Sinks() {}

    /** Collects records in memory; read them with {@link CollectSink#results()}. */
    public static <T> CollectSink<T> collect() {
        return new CollectSink<>();
    }

    /** Counts and discards records; read the total with {@link CountingSink#count()}. */
    public static <T> CountingSink<T> counting() {
        return new CountingSink<>();
    }

    /** A record handler for {@link #callback}. */
    @FunctionalInterface
    public interface Callback<T> extends java.io.Serializable {
        /** Handles one record; called on the sink task's thread. */
        void accept(T record) throws Exception;
    }

    /**
     * Calls {@code callback} for every record; at-least-once (a replay calls it again), and the
     * analyzer says so.
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

    /** Prints each record's {@code toString()} on standard output; at-least-once. */
    public static <T> Sink<T> console() {
        return console("");
    }

    /** Prints {@code prefix} and each record's {@code toString()} on standard output. */
    public static <T> Sink<T> console(String prefix) {
        return console(prefix, null);
    }

    /**
     * Prints {@code prefix} and each record's {@code toString()} on {@code out} (standard output if
     * null); at-least-once.
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
