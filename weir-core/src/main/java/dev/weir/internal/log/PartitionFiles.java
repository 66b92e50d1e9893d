package dev.weir.internal.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The entries of one partition directory, sorted into Weir's files and the rest. Only names Weir
 * writes count: a segment is exactly 20 digits and {@code .log}, its index the same digits and
 * {@code .index}. Anything else (a user's {@code backup.log}, a directory, a 19-digit name) is a
 * stranger: never parsed, read or deleted, only named so the caller can warn.
 *
 * @param segmentBases the base offsets of the segment files, ascending
 * @param indexBases the base offsets of the index files, ascending
 * @param legacy files an older Weir wrote that this one no longer uses
 * @param strangers the names of entries that are not Weir's
 */
record PartitionFiles(
        List<Long> segmentBases, Set<Long> indexBases, List<Path> legacy, List<String> strangers) {
    private static final Pattern SEGMENT = Pattern.compile("([0-9]{20})\\.log");
    private static final Pattern INDEX = Pattern.compile("([0-9]{20})\\.index");

    /** Written by an older Weir's clean close; replaced by the recovery point. */
    static final String LEGACY_CLEAN_MARKER = "clean-close";

    /** Lists {@code directory}; a missing directory holds nothing. */
    static PartitionFiles list(Path directory) throws IOException {
        TreeSet<Long> segments = new TreeSet<>();
        TreeSet<Long> indexes = new TreeSet<>();
        List<Path> legacy = new ArrayList<>();
        List<String> strangers = new ArrayList<>();
        List<Path> entries;
        try (Stream<Path> files = Files.list(directory)) {
            entries = files.sorted().toList();
        } catch (NoSuchFileException e) {
            entries = List.of();
        }
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            boolean file = Files.isRegularFile(entry);
            Long segment = file ? base(SEGMENT.matcher(name)) : null;
            Long index = file ? base(INDEX.matcher(name)) : null;
            if (segment != null) {
                segments.add(segment);
            } else if (index != null) {
                indexes.add(index);
            } else if (file && name.equals(RecoveryPoint.FILE_NAME)) {
                continue;
            } else if (file
                    && (name.equals(LEGACY_CLEAN_MARKER)
                            || name.equals(LEGACY_CLEAN_MARKER + ".tmp"))) {
                legacy.add(entry);
            } else {
                strangers.add(name);
            }
        }
        return new PartitionFiles(new ArrayList<>(segments), indexes, legacy, strangers);
    }

    /** The base offset a Weir file name holds, or null if the name is not one. */
    private static Long base(Matcher matcher) {
        if (!matcher.matches()) {
            return null;
        }
        try {
            return Long.parseLong(matcher.group(1));
        } catch (NumberFormatException e) {
            return null; // 20 digits beyond Long.MAX_VALUE: not a name Weir writes
        }
    }
}
