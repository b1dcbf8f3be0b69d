package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;

/**
 * Receives the values of a JSON document from {@link JsonWalker}, each named by its path: object
 * fields joined by dots, array elements as {@code []}, e.g. {@code usage.prompt_tokens} or
 * {@code messages[].content[].text}. The root is the empty path.
 */
public interface JsonVisitor {

    /**
     * A string, number, boolean or null at {@code path}. The parser is positioned on it; read it
     * with {@link JsonScalars} or the parser itself, but do not move the parser.
     */
    void scalar(String path, JsonParser value) throws IOException;

    /**
     * An object or array begins at {@code path}. Return false to skip it: its children are not
     * visited and {@link #skipped} reports its size instead (cheap way to weigh tool definitions).
     */
    default boolean enter(String path) {
        return true;
    }

    /** A container {@link #enter} declined, with the length of its JSON text (bytes, or chars for String input). */
    default void skipped(String path, long length) {}
}
