package dev.weir.internal.operators;

/** Carries an exception thrown by a user function through the runtime's unchecked paths. */
public final class UserCodeException extends RuntimeException {
    public UserCodeException(String where, Throwable cause) {
        super(where + " failed: " + cause, cause);
    }

    /** Returns the user's exception inside {@code t}, or {@code t} itself. */
    public static Throwable unwrap(Throwable t) {
        Throwable current = t;
        while (current instanceof UserCodeException && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
