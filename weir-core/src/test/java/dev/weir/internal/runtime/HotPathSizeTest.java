package dev.weir.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The per-record methods of a source's path to its channel stay small enough for C2 to inline them
 * into the reader's loop: a hot method of {@code FreqInlineSize} (325) bytes of bytecode or more is
 * never inlined, and each record then pays a real call (docs/design/009-hot-path.md, rule 5). Read
 * from the compiled classes with {@code javap}.
 */
class HotPathSizeTest {
    /** C2's default {@code FreqInlineSize} on x86_64 and aarch64. */
    private static final int FREQ_INLINE_SIZE = 325;

    private static final Pattern METHOD =
            Pattern.compile("^  [^=()]*\\s([\\w$]+)\\([^)]*\\)[^;]*;$", Pattern.MULTILINE);
    private static final Pattern OFFSET = Pattern.compile("^\\s+(\\d+): ", Pattern.MULTILINE);

    @Test
    void theWritersPerRecordMethodsCanBeInlined() {
        Map<String, Integer> sizes = bytecodeSizes(RecordWriter.class);
        assertThat(sizes).containsKeys("collect", "collectKeyed", "collectUnkeyed");
        assertThat(sizes.get("collect")).isLessThan(FREQ_INLINE_SIZE);
        assertThat(sizes.get("collectKeyed")).isLessThan(FREQ_INLINE_SIZE);
        assertThat(sizes.get("collectUnkeyed")).isLessThan(FREQ_INLINE_SIZE);
    }

    @Test
    void aSplitsStampCanBeInlinedIntoTheWriter() throws Exception {
        Map<String, Integer> sizes =
                bytecodeSizes(Class.forName(SourceDriver.class.getName() + "$SplitTime"));
        assertThat(sizes).containsKeys("stamp", "collect");
        assertThat(sizes.get("stamp")).isLessThan(FREQ_INLINE_SIZE);
        assertThat(sizes.get("collect")).isLessThan(FREQ_INLINE_SIZE);
    }

    /** Each method's bytecode length, at least the offset of its last instruction plus one. */
    private static Map<String, Integer> bytecodeSizes(Class<?> type) {
        Path classes;
        try {
            classes = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        ToolProvider javap =
                ToolProvider.findFirst("javap")
                        .orElseThrow(() -> new IllegalStateException("no javap in this JDK"));
        StringWriter out = new StringWriter();
        int exit =
                javap.run(
                        new PrintWriter(out),
                        new PrintWriter(new StringWriter()),
                        "-c",
                        "-p",
                        "-cp",
                        classes.toString(),
                        type.getName());
        assertThat(exit).as("javap exit code").isZero();
        String text = out.toString();
        Map<String, Integer> sizes = new HashMap<>();
        Matcher method = METHOD.matcher(text);
        int start = -1;
        String name = null;
        while (true) {
            boolean found = method.find();
            int end = found ? method.start() : text.length();
            if (name != null) {
                Matcher offset = OFFSET.matcher(text.substring(start, end));
                int last = -1;
                while (offset.find()) {
                    last = Integer.parseInt(offset.group(1));
                }
                sizes.merge(name, last + 1, Math::max);
            }
            if (!found) {
                return sizes;
            }
            name = method.group(1);
            start = method.end();
        }
    }
}
