package dev.weir.api.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * A record's components are part of what its codecs wrote: a state written with {@code (long count,
 * long sum)} and read by a class now declaring {@code (long sum, long count)} decoded both values
 * into the wrong components, silently. The record codec's id names the components (so a restore
 * refuses the state), and {@code Codecs.auto()} writes their fingerprint (so a nested record fails
 * to decode instead).
 */
class RecordSchemaTest {
    record Acc(long count, long sum) {}

    @Test
    void theRecordCodecsIdNamesItsComponentsAndStillReadsTheOldId() {
        Codec<Acc> codec = Codecs.record(Acc.class);
        assertThat(codec.id())
                .isEqualTo("weir.record:" + Acc.class.getName() + "(long count,long sum)");
        assertThat(codec.canRead(codec.id())).isTrue();
        assertThat(codec.canRead("weir.record:" + Acc.class.getName())).isTrue();
        assertThat(codec.canRead("weir.record:" + Acc.class.getName() + "(long sum,long count)"))
                .isFalse();
    }

    @Test
    void autoRefusesARecordWrittenWithOtherComponents() {
        Codec<Object> auto = Codecs.auto();
        byte[] bytes = auto.toBytes(new Acc(4, 10));
        assertThat(auto.fromBytes(bytes)).isEqualTo(new Acc(4, 10));

        // The same bytes as a class with other components would have written them.
        int fingerprint = ("(long count,long sum)").hashCode();
        int at = indexOf(bytes, fingerprint);
        assertThat(at).as("the fingerprint is written").isPositive();
        ByteBuffer.wrap(bytes).putInt(at, ("(long sum,long count)").hashCode());

        assertThatThrownBy(() -> auto.fromBytes(bytes))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(Acc.class.getName())
                .hasMessageContaining("other components")
                .hasMessageContaining("Restore with the class as it was");
    }

    private static int indexOf(byte[] bytes, int value) {
        for (int i = 0; i + 4 <= bytes.length; i++) {
            if (ByteBuffer.wrap(bytes).getInt(i) == value) {
                return i;
            }
        }
        return -1;
    }
}
