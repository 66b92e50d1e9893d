package dev.weir.cli;

import java.util.Locale;

/**
 * How far a long command is, rendered as a terminal progress bar or as a plain line. Pure: the same
 * figures always give the same text, so rendering is tested without a terminal or a clock.
 *
 * @param label what is in progress, such as {@code "verify"}
 * @param done units done so far; never negative
 * @param total units in all, or -1 if unknown (then no bar, percentage nor ETA)
 * @param elapsedNanos time since the work started
 * @param unit what is counted, plural ({@code "kills"}); {@code "bytes"} is shown in KiB, MiB, GiB
 * @param detail more to say after the figures (such as a record count), or empty
 */
record Progress(
        String label, long done, long total, long elapsedNanos, String unit, String detail) {
    /** Characters of the bar between its brackets. */
    static final int BAR_WIDTH = 24;

    /** Validates the figures. */
    Progress {
        if (done < 0 || total < -1 || elapsedNanos < 0) {
            throw new IllegalArgumentException(
                    "progress figures must not be negative: done="
                            + done
                            + " total="
                            + total
                            + " elapsedNanos="
                            + elapsedNanos);
        }
    }

    /**
     * The line a terminal shows, redrawn in place: {@code verify [=====> ] 52% 17/33 kills 0.8
     * kills/s ETA 0:20}; without a total, the count, the rate and the time elapsed.
     */
    String bar() {
        StringBuilder line = new StringBuilder(label).append(' ');
        if (total >= 0) {
            int filled = (int) (BAR_WIDTH * fraction());
            line.append('[');
            for (int i = 0; i < BAR_WIDTH; i++) {
                line.append(i < filled ? '=' : i == filled ? '>' : ' ');
            }
            line.append("] ").append(String.format(Locale.ROOT, "%3d%%", percent())).append(' ');
        }
        line.append(count()).append("  ").append(rate());
        line.append("  ").append(total >= 0 ? "ETA " + eta() : clock(elapsedNanos / 1_000_000_000));
        if (!detail.isEmpty()) {
            line.append("  ").append(detail);
        }
        return line.toString();
    }

    /**
     * The line printed now and then when the output is not a terminal: {@code verify: 17/33 kills
     * (52%), 0.8 kills/s, elapsed 0:21, ETA 0:20}.
     */
    String line() {
        StringBuilder line = new StringBuilder(label).append(": ").append(count());
        if (total >= 0) {
            line.append(" (").append(percent()).append("%)");
        }
        line.append(", ").append(rate());
        line.append(", elapsed ").append(clock(elapsedNanos / 1_000_000_000));
        if (total >= 0) {
            line.append(", ETA ").append(eta());
        }
        if (!detail.isEmpty()) {
            line.append(", ").append(detail);
        }
        return line.toString();
    }

    /** Done over total, within 0..1 (0 when the total is unknown or zero units are done of 0). */
    double fraction() {
        if (total <= 0) {
            return total == 0 ? 1 : 0;
        }
        return Math.min(1.0, (double) done / total);
    }

    private int percent() {
        return (int) Math.floor(fraction() * 100);
    }

    private String count() {
        String amounts = total >= 0 ? amount(done) + "/" + amount(total) : amount(done);
        return isBytes() ? amounts : amounts + " " + unit; // byte amounts carry their unit
    }

    /** Units per second over the whole run so far; "--" before any time has passed. */
    private String rate() {
        if (elapsedNanos == 0) {
            return "-- " + unit + "/s";
        }
        double perSecond = done * 1e9 / elapsedNanos;
        if (isBytes()) {
            return bytes(perSecond) + "/s";
        }
        return (perSecond >= 100
                        ? String.format(Locale.ROOT, "%,d", Math.round(perSecond))
                        : String.format(Locale.ROOT, "%.1f", perSecond))
                + " "
                + unit
                + "/s";
    }

    /** Time left at the rate so far, as {@code m:ss} or {@code h:mm:ss}; "--:--" if unknown. */
    private String eta() {
        if (done >= total) {
            return clock(0);
        }
        if (done == 0 || elapsedNanos == 0) {
            return "--:--";
        }
        double secondsLeft = (total - done) * (elapsedNanos / 1e9) / done;
        return clock((long) Math.ceil(secondsLeft));
    }

    private boolean isBytes() {
        return unit.equals("bytes");
    }

    private String amount(long units) {
        return isBytes() ? bytes(units) : String.format(Locale.ROOT, "%,d", units);
    }

    /** Bytes as B, KiB, MiB or GiB with one decimal above bytes. */
    static String bytes(double bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int scale = 0;
        while (bytes >= 1024 && scale < units.length - 1) {
            bytes /= 1024;
            scale++;
        }
        return scale == 0
                ? String.format(Locale.ROOT, "%d %s", Math.round(bytes), units[0])
                : String.format(Locale.ROOT, "%.1f %s", bytes, units[scale]);
    }

    /** Seconds as {@code m:ss}, or {@code h:mm:ss} from an hour on. */
    static String clock(long seconds) {
        long h = seconds / 3600;
        long m = seconds / 60 % 60;
        long s = seconds % 60;
        return h > 0
                ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s)
                : String.format(Locale.ROOT, "%d:%02d", m, s);
    }
}
