package dev.weir.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.api.testing.FaultPoint;
import dev.weir.internal.testhooks.FaultPoints;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurableFilesTest {
    @TempDir Path dir;

    @AfterEach
    void disarm() {
        FaultPoints.disarm();
    }

    /** Sizes around the write slice: empty, one byte, a slice exactly, and several with a rest. */
    @Test
    void writesEveryByteWhateverTheSize() throws Exception {
        int slice = DurableFiles.WRITE_SLICE;
        SplittableRandom random = new SplittableRandom(42);
        for (int size : new int[] {0, 1, slice - 1, slice, slice + 1, 3 * slice + 12_345}) {
            byte[] bytes = new byte[size];
            for (int i = 0; i < size; i++) {
                bytes[i] = (byte) random.nextInt();
            }
            Path file = dir.resolve("f" + size);
            Files.write(file, new byte[size + 7]); // longer: the write must truncate it
            DurableFiles.writeDurably(file, bytes);
            assertThat(Files.readAllBytes(file)).as("size %d", size).isEqualTo(bytes);
        }
    }

    /** The mid-write fault point is reached with exactly the first half on disk, in slices too. */
    @Test
    void midWriteFaultPointSeesTheFirstHalf() throws Exception {
        int size = 2 * DurableFiles.WRITE_SLICE + 1001;
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, (byte) 7);
        Path file = dir.resolve("half");
        FaultPoints.throwAt(FaultPoint.SNAPSHOT_MID_WRITE, 1);
        assertThatThrownBy(
                        () ->
                                DurableFiles.writeDurably(
                                        file, bytes, FaultPoint.SNAPSHOT_MID_WRITE, null))
                .isInstanceOf(FaultPoints.InjectedFault.class);
        assertThat(Files.size(file)).isEqualTo(size / 2);
        FaultPoints.disarm();
        DurableFiles.writeDurably(file, bytes, FaultPoint.SNAPSHOT_MID_WRITE, null);
        assertThat(Files.readAllBytes(file)).isEqualTo(bytes);
    }
}
