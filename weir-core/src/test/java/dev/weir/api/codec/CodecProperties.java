package dev.weir.api.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class CodecProperties {
    record Point(long x, int y, String label, double weight, boolean flag) {}

    record Nested(Point point, String name) {}

    @Property
    void longsRoundTrip(@ForAll long value) {
        assertThat(Codecs.LONG.fromBytes(Codecs.LONG.toBytes(value))).isEqualTo(value);
    }

    @Property
    void intsRoundTrip(@ForAll int value) {
        assertThat(Codecs.INT.fromBytes(Codecs.INT.toBytes(value))).isEqualTo(value);
    }

    @Property
    void doublesRoundTripBitForBit(@ForAll double value) {
        double back = Codecs.DOUBLE.fromBytes(Codecs.DOUBLE.toBytes(value));
        assertThat(Double.doubleToRawLongBits(back)).isEqualTo(Double.doubleToRawLongBits(value));
    }

    @Property
    void stringsRoundTripIncludingSurrogates(@ForAll String value) {
        assertThat(Codecs.STRING.fromBytes(Codecs.STRING.toBytes(value))).isEqualTo(value);
    }

    @Property
    void byteArraysRoundTrip(@ForAll byte[] value) {
        assertThat(Codecs.BYTES.fromBytes(Codecs.BYTES.toBytes(value))).isEqualTo(value);
    }

    @Property
    void recordsRoundTrip(
            @ForAll long x,
            @ForAll int y,
            @ForAll String label,
            @ForAll double weight,
            @ForAll boolean flag,
            @ForAll String name) {
        Nested value = new Nested(new Point(x, y, label, weight, flag), name);
        Codec<Nested> codec = Codecs.record(Nested.class);
        Nested back = codec.fromBytes(codec.toBytes(value));
        assertThat(back.name()).isEqualTo(name);
        assertThat(back.point().x()).isEqualTo(x);
        assertThat(back.point().label()).isEqualTo(label);
        assertThat(Double.compare(back.point().weight(), weight)).isZero();
    }

    @Property
    void autoRoundTripsEveryBuiltInType(@ForAll long l, @ForAll String s, @ForAll byte[] b) {
        Codec<Object> auto = Codecs.auto();
        for (Object value : new Object[] {l, (int) l, s, true, new Point(l, 1, s, 0.5, false)}) {
            assertThat(auto.fromBytes(auto.toBytes(value))).isEqualTo(value);
        }
        assertThat((byte[]) auto.fromBytes(auto.toBytes(b))).isEqualTo(b);
    }

    @Test
    void autoRefusesAnUnsupportedTypeNamingIt() {
        assertThatThrownBy(() -> Codecs.auto().toBytes(new StringBuilder("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.StringBuilder")
                .hasMessageContaining("explicit Codec");
    }

    @Test
    void aCorruptLengthIsAClearErrorNotAnOutOfMemory() {
        byte[] bytes = Codecs.STRING.toBytes("hello");
        bytes[0] = (byte) 0x7f;
        assertThatThrownBy(
                        () ->
                                Codecs.STRING.decode(
                                        new DataInputStream(new ByteArrayInputStream(bytes))))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("corrupt length");
    }

    @Property
    void encodingIsDeterministic(@ForAll String s) {
        assertThat(Arrays.equals(Codecs.STRING.toBytes(s), Codecs.STRING.toBytes(s))).isTrue();
    }
}
