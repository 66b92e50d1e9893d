package dev.weir.internal.operators;

import dev.weir.api.UnrecoverableException;

/**
 * The output a user function emits into: refuses {@code null} at the step that produced it, naming
 * that step, instead of letting it travel on (a file sink would write the text "null", a keyed step
 * fail far away).
 */
public final class NullCheckingOutput implements Output {
    private final String step;
    private final Output output;

    /**
     * Checks records that {@code step} (such as {@code "flatMap 'parse'"}) emits into {@code
     * output}.
     */
    public NullCheckingOutput(String step, Output output) {
        this.step = step;
        this.output = output;
    }

    @Override
    public void collect(Object record) {
        if (record == null) {
            throw nullRecord(step, "emitted null");
        }
        output.collect(record);
    }

    @Override
    public void emitWatermark(long watermark) {
        output.emitWatermark(watermark);
    }

    /**
     * The same check for a source's output, as a class of its own: its {@code collect} is a
     * separate call site, so the JIT's type profile of the source's next step is not shared with
     * (and made polymorphic by) every process function's output (docs/design/009-hot-path.md).
     */
    public static Output forSource(String source, Output output) {
        return new SourceOutput("source '" + source + "'", output);
    }

    private static final class SourceOutput implements Output {
        private final String step;
        private final Output output;

        SourceOutput(String step, Output output) {
            this.step = step;
            this.output = output;
        }

        @Override
        public void collect(Object record) {
            if (record == null) {
                throw nullRecord(step, "emitted null");
            }
            output.collect(record);
        }

        @Override
        public void emitWatermark(long watermark) {
            output.emitWatermark(watermark);
        }
    }

    /** The failure for a null record that {@code step} produced. */
    public static UnrecoverableException nullRecord(String step, String what) {
        return new UnrecoverableException(
                step
                        + " "
                        + what
                        + "; a stream cannot carry null records. Emit nothing for that input"
                        + " (filter it out first, or use flatMap), or emit a value such as an"
                        + " empty string or an Optional");
    }
}
