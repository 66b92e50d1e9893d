package dev.weir.api;

import java.io.Serializable;
import java.util.Objects;

/**
 * Names a side output of a step: a second stream of records of type {@code T} that a function emits
 * beside its main output (for example records arriving too late, or errors to look at). Obtain the
 * stream with {@link DataStream#sideOutput(OutputTag)} on the step's output; records sent to a tag
 * nobody reads are dropped.
 *
 * @param <T> record type of the side output
 * @param id the tag's name, unique among the step's side outputs
 * @serial exclude
 */
public record OutputTag<T>(String id) implements Serializable {
    /**
     * Validates the id.
     *
     * @param id the tag's name; not empty
     * @throws IllegalArgumentException if {@code id} is empty
     */
    public OutputTag {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("an OutputTag needs a non-empty id");
        }
    }

    /**
     * A tag called {@code id}; the type parameter says what the side output carries.
     *
     * @param <T> the type of the records the side output carries
     * @param id the tag's name, unique among the step's side outputs; not empty
     * @return the tag
     * @throws IllegalArgumentException if {@code id} is empty
     */
    public static <T> OutputTag<T> of(String id) {
        return new OutputTag<>(id);
    }
}
