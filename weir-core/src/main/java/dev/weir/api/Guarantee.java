package dev.weir.api;

/**
 * How often each input record affects the committed result: the engine mode, each source, each
 * sink, and the pipeline end to end (the minimum of those) each have one.
 */
public enum Guarantee {
    /** A record may be lost after a failure, never doubled. */
    AT_MOST_ONCE,
    /** A record is never lost, but may be applied twice after a failure. */
    AT_LEAST_ONCE,
    /** Each record affects the committed result exactly once, even across failures. */
    EXACTLY_ONCE;

    /**
     * Returns the weaker of this and {@code other}.
     *
     * @param other the guarantee to compare with
     * @return the weaker one; this one if both are the same
     */
    public Guarantee min(Guarantee other) {
        return compareTo(other) <= 0 ? this : other;
    }

    /**
     * Returns true if this is at least as strong as {@code required}.
     *
     * @param required the guarantee needed
     * @return true if this guarantee is the same or stronger
     */
    public boolean satisfies(Guarantee required) {
        return compareTo(required) >= 0;
    }
}
