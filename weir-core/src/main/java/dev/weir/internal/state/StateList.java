package dev.weir.internal.state;

import java.util.ArrayList;
import java.util.Collection;

/**
 * The list of one key's {@code ListState}, owned like a {@link StateMap}: the backend changes it in
 * place only while {@link #owner} is its token, and copies it first otherwise.
 */
final class StateList<T> extends ArrayList<T> {
    private static final long serialVersionUID = 1L;

    /** The token of the backend that may change this list; null if none (decoded). */
    final transient Object owner;

    StateList(Object owner) {
        this.owner = owner;
    }

    StateList(Collection<? extends T> values, Object owner) {
        super(values);
        this.owner = owner;
    }
}
