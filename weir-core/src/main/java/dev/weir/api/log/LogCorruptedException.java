package dev.weir.api.log;

/**
 * A record inside a log (not at its torn tail) fails its checksum or framing. Weir never skips it:
 * skipping would silently lose data.
 */
public final class LogCorruptedException extends RuntimeException {
    /**
     * A damaged record. The message says how to recover: restore the segment, or delete it and the
     * later ones to give up their data.
     *
     * @param topic the topic's name
     * @param partition the partition, from 0
     * @param offset the offset of the damaged record (or of where framing broke)
     * @param file the segment file's name
     * @param problem what is wrong, such as a checksum mismatch
     */
    public LogCorruptedException(
            String topic, int partition, long offset, String file, String problem) {
        super(
                "log topic '"
                        + topic
                        + "' partition "
                        + partition
                        + " is corrupt at offset "
                        + offset
                        + " in segment "
                        + file
                        + ": "
                        + problem
                        + ". Restore the segment from a replica or backup; to give up the data"
                        + " from this offset on, delete this segment and the later ones.");
    }
}
