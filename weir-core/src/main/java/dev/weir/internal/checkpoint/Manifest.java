package dev.weir.internal.checkpoint;

import dev.weir.api.checkpoint.CheckpointCorruptedException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The commit point of a checkpoint: lists every file with its length and CRC32C.
 *
 * <p>A text file, readable by people, whose last line is the CRC32C of all lines before it. A
 * checkpoint directory without a manifest is incomplete (never committed); one with a manifest that
 * does not verify is corrupt.
 *
 * @param checkpointId the checkpoint's id
 * @param savepoint true for a savepoint
 * @param jobName the job that wrote it
 * @param maxParallelism the job's number of key groups
 * @param triggerEpochMillis when it was triggered
 * @param files every data file in the directory
 */
public record Manifest(
        long checkpointId,
        boolean savepoint,
        String jobName,
        int maxParallelism,
        long triggerEpochMillis,
        List<FileEntry> files) {
    /** The manifest's file name in a checkpoint directory. */
    public static final String FILE_NAME = "_manifest";

    static final String HEADER = "weir-manifest 1";

    /**
     * One data file.
     *
     * @param name file name inside the checkpoint directory
     * @param length bytes
     * @param crc32c checksum of the whole file
     */
    public record FileEntry(String name, long length, long crc32c) {}

    public byte[] toBytes() {
        StringBuilder text = new StringBuilder();
        text.append(HEADER).append('\n');
        text.append("checkpoint ").append(checkpointId).append('\n');
        text.append("savepoint ").append(savepoint).append('\n');
        text.append("job ").append(jobName).append('\n');
        text.append("maxParallelism ").append(maxParallelism).append('\n');
        text.append("triggered ").append(triggerEpochMillis).append('\n');
        for (FileEntry file : files) {
            text.append("file ")
                    .append(file.name())
                    .append(' ')
                    .append(file.length())
                    .append(' ')
                    .append(hex(file.crc32c()))
                    .append('\n');
        }
        byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(body);
        String trailer = "crc32c " + hex(crc.getValue()) + "\n";
        byte[] all = new byte[body.length + trailer.length()];
        System.arraycopy(body, 0, all, 0, body.length);
        System.arraycopy(
                trailer.getBytes(StandardCharsets.UTF_8), 0, all, body.length, trailer.length());
        return all;
    }

    static String hex(long crc) {
        return String.format(Locale.ROOT, "%08x", crc);
    }

    /** Reads and verifies the manifest of {@code directory}, and every file it lists. */
    public static Manifest readVerified(Path directory) {
        Manifest manifest = read(directory);
        for (FileEntry file : manifest.files()) {
            Path path = directory.resolve(file.name());
            byte[] bytes = StateFiles.readAll(path);
            if (bytes.length != file.length()) {
                throw new CheckpointCorruptedException(
                        path,
                        "length "
                                + bytes.length
                                + " differs from "
                                + file.length()
                                + " in the manifest");
            }
            CRC32C crc = new CRC32C();
            crc.update(bytes);
            if (crc.getValue() != file.crc32c()) {
                throw new CheckpointCorruptedException(
                        path,
                        "CRC32C "
                                + hex(crc.getValue())
                                + " differs from "
                                + hex(file.crc32c())
                                + " in the manifest");
            }
        }
        return manifest;
    }

    /** Reads the manifest of {@code directory}, verifying its own checksum only. */
    public static Manifest read(Path directory) {
        Path path = directory.resolve(FILE_NAME);
        byte[] bytes = StateFiles.readAll(path);
        String text = new String(bytes, StandardCharsets.UTF_8);
        int trailerStart = text.lastIndexOf("crc32c ");
        if (!text.startsWith(HEADER) || trailerStart < 0 || !text.endsWith("\n")) {
            throw new CheckpointCorruptedException(path, "the manifest is torn or not a manifest");
        }
        String body = text.substring(0, trailerStart);
        CRC32C crc = new CRC32C();
        crc.update(body.getBytes(StandardCharsets.UTF_8));
        String stored = text.substring(trailerStart + 7).trim();
        if (!stored.equals(hex(crc.getValue()))) {
            throw new CheckpointCorruptedException(
                    path,
                    "manifest CRC32C " + hex(crc.getValue()) + " differs from stored " + stored);
        }
        try {
            return parse(body);
        } catch (RuntimeException e) {
            throw new CheckpointCorruptedException(
                    path, "the manifest cannot be parsed (" + e + ")");
        }
    }

    private static Manifest parse(String body) {
        long id = -1;
        boolean savepoint = false;
        String job = "";
        int maxParallelism = -1;
        long triggered = 0;
        List<FileEntry> files = new ArrayList<>();
        for (String line : body.split("\n")) {
            String[] parts = line.split(" ");
            switch (parts[0]) {
                case "checkpoint" -> id = Long.parseLong(parts[1]);
                case "savepoint" -> savepoint = Boolean.parseBoolean(parts[1]);
                case "job" -> job = parts[1];
                case "maxParallelism" -> maxParallelism = Integer.parseInt(parts[1]);
                case "triggered" -> triggered = Long.parseLong(parts[1]);
                case "file" ->
                        files.add(
                                new FileEntry(
                                        parts[1],
                                        Long.parseLong(parts[2]),
                                        Long.parseLong(parts[3], 16)));
                default -> {
                    // header line, or a field a newer version added
                }
            }
        }
        if (id < 0 || maxParallelism < 1) {
            throw new IllegalArgumentException("checkpoint id or maxParallelism missing");
        }
        return new Manifest(id, savepoint, job, maxParallelism, triggered, List.copyOf(files));
    }
}
