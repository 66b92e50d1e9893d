package dev.weir.api.source;

import java.util.Objects;

/**
 * A position in a split from which reading can resume: the number of records (or bytes, for byte
 * oriented sources) consumed from the start of the split.
 *
 * @param split the split's id, as returned by {@link Source#splits}
 * @param position how far the split has been read; never negative
 */
public record Offset(String split, long position) {
    /**
     * Validates the fields.
     *
     * @param split the split's id; not null
     * @param position records (or bytes) consumed from the start of the split; not negative
     * @throws NullPointerException if {@code split} is null
     * @throws IllegalArgumentException if {@code position} is negative
     */
    public Offset {
        Objects.requireNonNull(split, "split");
        if (position < 0) {
            throw new IllegalArgumentException("offset position must be >= 0, got " + position);
        }
    }

    @Override
    public String toString() {
        return split + "@" + position;
    }
}
