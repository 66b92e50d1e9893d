package dev.weir.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongSupplier;

/**
 * Shows the {@link Progress} of a long command on standard error: on a terminal a bar redrawn in
 * place at most every {@value #REDRAW_MILLIS} ms, otherwise a plain line every {@value
 * #LINE_SECONDS} s (none for a command that ends sooner), so logs and pipes get a few readable
 * lines and short commands print nothing extra.
 *
 * <p>Called by the command's thread ({@link #update}, {@link #finish}) and by whatever writes to
 * {@link #around} streams; its methods are synchronized so a bar and other output do not mix.
 */
public final class ProgressReporter {
    static final long REDRAW_MILLIS = 200;
    static final long LINE_SECONDS = 10;

    /** How progress is shown. */
    enum Mode {
        /** A bar redrawn in place (a terminal). */
        BAR,
        /** Plain lines now and then (a pipe or a file). */
        LINES
    }

    private final String label;
    private final String unit;
    private final PrintStream err;
    private final Mode mode;
    private final LongSupplier nanoClock;
    private final long startNanos;
    private long total;
    private long done;
    private String detail = "";
    private long shownAtNanos;
    private boolean shownOnce;

    /** Width of the bar on screen now, 0 when none is drawn. */
    private int drawn;

    ProgressReporter(
            String label,
            long total,
            String unit,
            PrintStream err,
            Mode mode,
            LongSupplier nanoClock) {
        this.label = label;
        this.total = total;
        this.unit = unit;
        this.err = err;
        this.mode = mode;
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
        this.shownAtNanos = startNanos;
    }

    /** A reporter on the current {@code System.err}, in the mode {@link #terminal()} says. */
    public static ProgressReporter onStandardError(String label, long total, String unit) {
        return new ProgressReporter(
                label,
                total,
                unit,
                System.err,
                terminal() ? Mode.BAR : Mode.LINES,
                System::nanoTime);
    }

    /**
     * True if the user watches a terminal: {@code System.console()} is there (standard input and
     * output are a terminal), or standard error is one (on Linux: {@code /proc/self/fd/2} is a tty
     * device), which covers {@code weir log append < file}.
     */
    static boolean terminal() {
        if (System.console() != null) {
            return true;
        }
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false; // not Linux, or not allowed to look: assume no terminal
        }
    }

    /**
     * The size of standard input if it is a regular file ({@code weir log append < file}), or -1 (a
     * pipe, a terminal, or not Linux).
     */
    static long standardInputSize() {
        Path in = Path.of("/proc/self/fd/0");
        try {
            return Files.isRegularFile(in) ? Files.size(in) : -1;
        } catch (IOException | SecurityException e) {
            return -1;
        }
    }

    /** Records that {@code doneNow} units are done; shows it if it is time to. */
    public synchronized void update(long doneNow, String detailNow) {
        this.done = doneNow;
        this.detail = detailNow;
        long now = nanoClock.getAsLong();
        long interval = mode == Mode.BAR ? REDRAW_MILLIS * 1_000_000 : LINE_SECONDS * 1_000_000_000;
        if ((mode == Mode.BAR && !shownOnce) || now - shownAtNanos >= interval) {
            shownAtNanos = now;
            shownOnce = true;
            show(now);
        }
    }

    /** Records {@code doneNow} of a total that became known (or changed) meanwhile. */
    synchronized void update(long doneNow, long totalNow) {
        this.total = totalNow;
        update(doneNow, detail);
    }

    /**
     * The work is over: removes the bar; in line mode prints a last line if any was printed, so a
     * log that showed progress also shows the end.
     */
    public synchronized void finish() {
        if (mode == Mode.BAR) {
            clear();
        } else if (shownOnce) {
            show(nanoClock.getAsLong());
        }
    }

    /**
     * Wraps {@code target} so that what is written to it does not mix with the bar: the bar is
     * removed before a write and drawn again after each complete line.
     */
    public PrintStream around(PrintStream target) {
        if (mode != Mode.BAR) {
            return target;
        }
        OutputStream lines =
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        write(new byte[] {(byte) b}, 0, 1);
                    }

                    @Override
                    public void write(byte[] bytes, int offset, int length) {
                        synchronized (ProgressReporter.this) {
                            clear();
                            target.write(bytes, offset, length);
                            target.flush();
                            if (length > 0 && bytes[offset + length - 1] == '\n' && shownOnce) {
                                show(nanoClock.getAsLong());
                            }
                        }
                    }

                    @Override
                    public void flush() {
                        target.flush();
                    }
                };
        return new PrintStream(lines, true, StandardCharsets.UTF_8);
    }

    private void show(long now) {
        Progress progress = new Progress(label, done, total, now - startNanos, unit, detail);
        if (mode == Mode.LINES) {
            err.println(progress.line());
            return;
        }
        String bar = progress.bar();
        StringBuilder text = new StringBuilder("\r").append(bar);
        for (int i = bar.length(); i < drawn; i++) {
            text.append(' '); // cover the end of a longer bar before
        }
        err.print(text);
        err.flush();
        drawn = bar.length();
    }

    private void clear() {
        if (drawn == 0) {
            return;
        }
        err.print("\r" + " ".repeat(drawn) + "\r");
        err.flush();
        drawn = 0;
    }
}
