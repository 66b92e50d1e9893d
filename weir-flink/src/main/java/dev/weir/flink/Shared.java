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
 * CollectSink}'s results, an {@code AtomicBoolean} a test function captured). So the local runner
 * registers each object under an id for the job's lifetime and {@link #get} returns the registered
 * instance when there is one in this JVM; on a cluster the deserialised copy is used. The object is
 * serialised in both cases, so a function that cannot be shipped to a cluster fails locally too.
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

    /** Wraps {@code value}; if {@code live}, registers it in this JVM until {@link #release}. */
    static <T> Shared<T> of(String jobId, String name, T value, boolean live) {
        Shared<T> shared = new Shared<>(jobId + "/" + name, value);
        if (live) {
            LIVE.put(shared.id, value);
        }
        return shared;
    }

    /**
     * Registers {@code value} (which need not be serialisable) for this JVM only: on a cluster
     * {@link #get} returns null.
     */
    static <T> Shared<T> liveOnly(String jobId, String name, T value) {
        Shared<T> shared = new Shared<>(jobId + "/" + name, null);
        LIVE.put(shared.id, value);
        return shared;
    }

    /** The registered instance in this JVM, or the deserialised copy. */
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
