package dev.weir.internal.runtime;

import dev.weir.api.source.Source;
import dev.weir.api.source.SourceContext;
import dev.weir.internal.checkpoint.SplitState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Drives a source's splits through the runtime's {@link SourceDriver} for conformance tests, as one
 * source subtask does: poll, snapshot at a "barrier", restore into a new driver.
 */
public final class SourceDriverProbe implements AutoCloseable {
    private final SourceDriver driver;
    private final List<Object> out = new ArrayList<>();

    @SuppressWarnings("unchecked")
    public SourceDriverProbe(
            Source<?> source,
            List<String> splits,
            SourceContext context,
            Map<String, SplitState> restored)
            throws Exception {
        this.driver = new SourceDriver((Source<Object>) source, splits, context);
        driver.open(restored);
    }

    /** Polls once with {@code maxRecords}; returns the records emitted so far, in order. */
    public List<Object> poll(int maxRecords) throws Exception {
        driver.poll(out::add, maxRecords);
        return out;
    }

    /** The records emitted so far. */
    public List<Object> emitted() {
        return out;
    }

    /** True once every split ended. */
    public boolean ended() {
        return driver.ended();
    }

    /** What a checkpoint barrier would record now. */
    public Map<String, SplitState> snapshot() throws Exception {
        return driver.snapshot();
    }

    @Override
    public void close() throws Exception {
        driver.close();
    }
}
