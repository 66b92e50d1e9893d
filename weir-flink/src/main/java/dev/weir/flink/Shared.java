package dev.weir.flink;

import java.io.Serializable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A user object (source, function, sink) as it travels inside a Flink job.
 *
 * <p>Flink serialises every function into the job graph and each task deserialises its own copy. On
 * a cluster that is the only way; in a local MiniCluster it would make a Weir pipeline behave
 * differently from Weir's own runtime, where steps share the user's objects (a {@code
 * CollectSink}'s results, an {@code AtomicBoolean} or a {@code PrintStream} a function captured).
 * So a local job registers each object in this JVM under an id for the job's lifetime and ships
 * only the id; {@link #get} returns the registered instance. A job for a cluster ships the object
 * itself (it must then be serialisable, as Flink requires).
 *
 * @param <T> the object's type
 */
final class Shared<T> implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final Map<String, Object> LIVE = new ConcurrentHashMap<>();

    private final String id;
    private final T value;

    private Shared(String id, T value) {
        this.id = id;
        this.value = value;
    }

    /**
     * Wraps {@code value}: if {@code live}, registers it in this JVM until {@link #release} and
     * ships only its id; otherwise ships the object.
     */
    static <T> Shared<T> of(String jobId, String name, T value, boolean live) {
        String id = jobId + "/" + name;
        if (live) {
            LIVE.put(id, value);
            return new Shared<>(id, null);
        }
        return new Shared<>(id, value);
    }

    /** Registers {@code value} in this JVM only: on a cluster {@link #get} returns null. */
    static <T> Shared<T> liveOnly(String jobId, String name, T value) {
        return of(jobId, name, value, true);
    }

    /** The registered instance in this JVM, or the shipped copy. */
    @SuppressWarnings("unchecked")
    T get() {
        Object live = LIVE.get(id);
        return live != null ? (T) live : value;
    }

    /** Forgets every object registered for {@code jobId}. */
    static void release(String jobId) {
        LIVE.keySet().removeIf(key -> key.startsWith(jobId + "/"));
    }
}
