package dev.weir.testing;

import dev.weir.internal.checkpoint.CheckpointStore;
import java.nio.file.Path;

/**
 * Holds a checkpoint directory's lock until killed: prints {@code LOCKED} once it holds it.
 * Argument: the checkpoint directory.
 */
public final class LockHolderChild {
    private LockHolderChild() {}

    public static void main(String[] args) throws Exception {
        try (CheckpointStore store = new CheckpointStore(Path.of(args[0]), 3)) {
            System.out.println("LOCKED");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
