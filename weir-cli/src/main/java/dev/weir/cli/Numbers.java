package dev.weir.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Type converters that refuse numbers out of range while the command line is parsed, so a negative
 * batch size or count is a usage error (status 2) naming the option, before anything runs.
 */
final class Numbers {
    private Numbers() {}

    /** An {@code int} of at least 1. */
    static final class PositiveInt implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) check(value, 1, Integer.MAX_VALUE, "a positive integer");
        }
    }

    /** A topic's partition count: 1 to 10,000, the durable log's limit. */
    static final class Partitions implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) check(value, 1, 10_000, "a partition count within 1..10000");
        }
    }

    /** An {@code int} of at least 0. */
    static final class NonNegativeInt implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) check(value, 0, Integer.MAX_VALUE, "an integer >= 0");
        }
    }

    /** A {@code long} of at least 1. */
    static final class PositiveLong implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return check(value, 1, Long.MAX_VALUE, "a positive integer");
        }
    }

    /** A {@code long} of at least 0. */
    static final class NonNegativeLong implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return check(value, 0, Long.MAX_VALUE, "an integer >= 0");
        }
    }

    static long check(String value, long min, long max, String what) {
        long parsed;
        try {
            parsed = Long.parseLong(value.strip().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not " + what);
        }
        if (parsed < min || parsed > max) {
            throw new TypeConversionException("'" + value + "' is not " + what);
        }
        return parsed;
    }
}
