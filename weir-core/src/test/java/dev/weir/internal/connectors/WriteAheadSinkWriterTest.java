package dev.weir.internal.connectors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.api.sink.WriteAheadSink.Batch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a write-ahead sink sent is recorded per origin subtask, whichever subtask sends it: after a
 * restore at another parallelism, a batch lands on a subtask other than the one that buffered it.
 */
class WriteAheadSinkWriterTest {
    @TempDir Path dir;
    final List<String> sent = new ArrayList<>();

    WriteAheadSinkWriter<String> writer(int subtask) throws Exception {
        return writer(subtask, 1);
    }

    WriteAheadSinkWriter<String> writer(int subtask, long restoredCheckpointId) throws Exception {
        return new WriteAheadSinkWriter<>(
                dir,
                "out",
                subtask,
                restoredCheckpointId,
                b -> sent.add(b.origin() + "@" + b.checkpointId()));
    }

    @Test
    void aBatchOfAnotherOriginIsSentUnlessThatOriginRecordedIt() throws Exception {
        // Before the failure, at parallelism 2: subtask 0 sent checkpoint 2, subtask 1 did not.
        writer(0).commit(new Batch<>(2, 0, List.of("a")));
        writer(1).commit(new Batch<>(1, 1, List.of("b")));
        sent.clear();
        // Restored at parallelism 1: subtask 0 commits both subtasks' batches of checkpoint 2.
        WriteAheadSinkWriter<String> only = writer(0);
        only.commit(new Batch<>(2, 0, List.of("a")));
        only.commit(new Batch<>(2, 1, List.of("c")));
        assertThat(sent).containsExactly("1@2");
        // Back at parallelism 2, subtask 1 finds origin 1's checkpoint 2 recorded.
        sent.clear();
        writer(1).commit(new Batch<>(2, 1, List.of("c")));
        assertThat(sent).isEmpty();
    }

    @Test
    void aBatchFromBeforeOriginsWereRecordedCountsAsTheSendersOwn() throws Exception {
        writer(0).commit(new Batch<>(3, 0, List.of("a")));
        sent.clear();
        WriteAheadSinkWriter<String> restored = writer(0);
        restored.commit(new Batch<>(3, -1, List.of("a")));
        restored.commit(new Batch<>(4, -1, List.of("b")));
        assertThat(sent).containsExactly("-1@4");
    }

    /**
     * A restore of a checkpoint older than the newest batch sent is refused (it would send that
     * checkpoint's records again), as is a run that wanted to resume and found no checkpoint; a
     * fresh start by request forgets what was sent, so ids that start again at 1 are all sent.
     */
    @Test
    void aRestoreOlderThanWhatWasSentIsRefusedAndAFreshStartForgetsIt() throws Exception {
        writer(0, 4).commit(new Batch<>(5, 0, List.of("a")));
        writer(1, 4).commit(new Batch<>(4, 1, List.of("b")));

        // Subtask 0 at parallelism 2 owns origin 0, which sent checkpoint 5.
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> writer(0, 4).recoverOwned(List.of(), 0, 2))
                .isInstanceOf(dev.weir.api.UnrecoverableException.class)
                .hasMessageContaining("sent the records of checkpoint 5")
                .hasMessageContaining("restored the older checkpoint 4");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> writer(0, 0).recoverOwned(List.of(), 0, 1))
                .hasMessageContaining("found no complete checkpoint to restore");
        writer(1, 4).recoverOwned(List.of(), 1, 2); // origin 1 sent only checkpoint 4
        writer(0, 5).recoverOwned(List.of(), 0, 1); // the newest checkpoint: nothing to refuse

        sent.clear();
        WriteAheadSinkWriter<String> fresh = writer(0, -1);
        fresh.recoverOwned(List.of(), 0, 1);
        fresh.commit(new Batch<>(1, 0, List.of("c")));
        fresh.commit(new Batch<>(2, 1, List.of("d")));
        assertThat(sent).containsExactly("0@1", "1@2");
    }
}
