package dev.weir.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.checkpoint.CheckpointView;
import dev.weir.internal.checkpoint.CheckpointStore;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint directory is a job's identity (SinkContext.jobInstanceId): created once, the same
 * for every later run on the directory, another for another directory.
 */
class CheckpointDirectoryIdentityTest {
    @TempDir Path temp;

    @Test
    void aDirectoryKeepsTheIdItsFirstJobCreatedAndAnotherDirectoryHasAnother() {
        Path first = temp.resolve("first");
        Path second = temp.resolve("second");
        assertThat(CheckpointView.instanceId(first)).isEmpty();
        String id;
        try (CheckpointStore store = new CheckpointStore(first, 3)) {
            id = store.instanceId();
        }
        assertThat(id).isNotBlank();
        assertThat(CheckpointView.instanceId(first)).hasValue(id);
        try (CheckpointStore again = new CheckpointStore(first, 3)) {
            assertThat(again.instanceId()).as("a later run on the directory").isEqualTo(id);
        }
        try (CheckpointStore other = new CheckpointStore(second, 3)) {
            assertThat(other.instanceId()).as("another directory").isNotEqualTo(id);
        }
    }

    @Test
    void aDamagedIdIsRefusedNamingTheFileNotReplacedSilently() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("damaged"));
        Files.writeString(dir.resolve(CheckpointStore.INSTANCE_ID), "not an id!\n");
        assertThatThrownBy(() -> new CheckpointStore(dir, 3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(CheckpointStore.INSTANCE_ID)
                .hasMessageContaining(dir.toString());
        assertThat(Files.readString(dir.resolve(CheckpointStore.INSTANCE_ID)))
                .isEqualTo("not an id!\n");
        // The refused store released the directory's lock: a repaired directory opens.
        Files.delete(dir.resolve(CheckpointStore.INSTANCE_ID));
        try (CheckpointStore store = new CheckpointStore(dir, 3)) {
            assertThat(store.instanceId()).isNotBlank();
        }
    }
}
