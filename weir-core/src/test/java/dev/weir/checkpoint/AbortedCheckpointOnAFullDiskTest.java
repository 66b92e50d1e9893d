package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.internal.checkpoint.CheckpointStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An aborted checkpoint's id must never be used again, so its directory is deleted only once the id
 * is recorded in {@code _max-aborted-id}, or while a newer directory keeps it from reuse. On a full
 * disk the record cannot be written: before, every aborted directory stayed (163 in 25 s on a small
 * tmpfs, found by a breaker); now only the newest does.
 */
class AbortedCheckpointOnAFullDiskTest {
    @TempDir Path dir;

    /** Makes the record's write fail as a full disk would: its temporary name is taken. */
    private void blockTheRecord() throws IOException {
        Files.createDirectories(dir.resolve("_max-aborted-id.tmp").resolve("in-the-way"));
    }

    @Test
    void anAbortedDirectoryGoesWithoutItsRecordOnlyWhileANewerOneKeepsItsId() throws Exception {
        try (CheckpointStore store = new CheckpointStore(dir, 3)) {
            for (long id = 5; id <= 7; id++) {
                Files.createDirectories(store.checkpointDirectory(id));
            }
            blockTheRecord();

            // The newest: nothing else keeps 7 from reuse, so it stays, and the failure is told.
            assertThatThrownBy(() -> store.deleteAborted(7)).isInstanceOf(IOException.class);
            assertThat(store.ids()).containsExactly(5L, 6L, 7L);

            // Older ones go: directory 7 keeps the ids up to 7 from reuse.
            store.deleteAborted(5);
            store.deleteAborted(6);
            assertThat(store.ids()).containsExactly(7L);
            assertThat(store.nextCheckpointId()).isEqualTo(8);

            // With room again, the newest is recorded and goes; its id is still not reused.
            Files.delete(dir.resolve("_max-aborted-id.tmp").resolve("in-the-way"));
            Files.delete(dir.resolve("_max-aborted-id.tmp"));
            store.deleteAborted(7);
            assertThat(store.ids()).isEmpty();
            assertThat(store.nextCheckpointId()).isEqualTo(8);
        }
    }
}
