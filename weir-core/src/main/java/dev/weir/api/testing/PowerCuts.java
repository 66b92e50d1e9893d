package dev.weir.api.testing;

import dev.weir.internal.testhooks.PowerCut;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;

/**
 * Power-cut emulation for crash harnesses. A JVM started with {@code -Dweir.powercut=<journal>}
 * notes in the journal every write, fsync, rename and directory fsync Weir's storage does (state
 * files, manifests, the file sink, the durable log). After killing that JVM, {@link #simulate}
 * turns the files into what a power cut at that moment could have left: bytes written after a
 * file's last fsync dropped or torn, files created and renames done without a later fsync of their
 * directory undone.
 */
public final class PowerCuts {
    private PowerCuts() {}

    /**
     * What a simulated power cut did.
     *
     * @param truncated files cut back to their last fsynced length
     * @param torn files cut at a random point of their unsynced tail
     * @param deleted files whose creation was not made durable
     * @param renamesUndone renames whose directory was not forced
     */
    public record Damage(int truncated, int torn, int deleted, int renamesUndone) {
        /**
         * True if the cut changed anything.
         *
         * @return true if any file was truncated, torn, deleted or renamed back
         */
        public boolean any() {
            return truncated + torn + deleted + renamesUndone > 0;
        }
    }

    /**
     * Applies a power cut to the files named in {@code journal}, choosing with {@code random}.
     *
     * @param journal the journal the killed JVM wrote; if it does not exist nothing is changed
     * @param random chooses where torn files are cut; seed it to reproduce a run
     * @return what the cut changed
     * @throws IOException if the journal cannot be read or a file cannot be changed
     */
    public static Damage simulate(Path journal, Random random) throws IOException {
        PowerCut.Damage damage = PowerCut.simulate(journal, random);
        return new Damage(
                damage.truncated(), damage.torn(), damage.deleted(), damage.renamesUndone());
    }
}
