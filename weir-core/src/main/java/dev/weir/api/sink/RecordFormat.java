package dev.weir.api.sink;

import java.io.Serializable;

/**
 * How {@link FileSink} writes a record as text: one record after another, each ended by a line
 * feed, with an optional header at the start of every file.
 *
 * <p>The core ships only {@link FileSink.Format#LINES} ({@code toString()}); JSON lines and CSV,
 * whose correctness depends on escaping rules best left to a maintained library, come from the
 * {@code weir-formats} module ({@code JsonLinesFormat}, {@code CsvFormat}, both on Jackson), so the
 * core keeps depending on slf4j-api only. Called on the sink task's thread; an implementation is
 * serialized with the pipeline, so it holds settings, not open resources.
 *
 * @param <T> record type
 */
public interface RecordFormat<T> extends Serializable {
    /**
     * The finished files' name suffix.
     *
     * @return such as {@code .csv}
     */
    String suffix();

    /**
     * The text every file starts with, such as a CSV header.
     *
     * @return that text without its line end, or null for none
     */
    default String header() {
        return null;
    }

    /**
     * The record's text without the final line end. It may hold line breaks only where the format
     * quotes them (a CSV field); a reader must then split records with that format's parser.
     *
     * @param record the record to write
     * @return its text
     * @throws IllegalArgumentException if the format cannot write this record (the message names
     *     the type or value), which fails the job at once, without a restart: the record would come
     *     again after one
     */
    String format(T record);
}
