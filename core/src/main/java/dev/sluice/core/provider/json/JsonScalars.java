package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.provider.wire.HeaderNumbers;
import java.io.IOException;

/** Reads one scalar defensively, the way provider JSON needs it: counts may be floats or strings, codes strings or numbers. */
public final class JsonScalars {

    /** What {@link #count} returns for anything that is not a non-negative number. */
    public static final long NOT_A_COUNT = -1;

    /** The longest model name taken from an answer (a fine-tuned model's is about 60 chars). */
    public static final int MOST_NAME_CHARS = 200;

    private JsonScalars() {}

    /**
     * A count in {@code [0, HeaderNumbers.MAX_COUNT]}: an integer, a float (truncated) or a numeric
     * string; {@link #NOT_A_COUNT} for null, booleans, negative, larger or unparseable values. The
     * bound is what keeps usage sane: adapters add two or three counts (input plus cache writes,
     * candidates plus thoughts), and counts up to 9e18 overflowed those sums into negative usage
     * that Usage's builder refused with an exception.
     */
    public static long count(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT || t == JsonToken.VALUE_STRING) {
            if (t == JsonToken.VALUE_STRING && p.getTextLength() > 40) {
                return NOT_A_COUNT;
            }
            double v = t == JsonToken.VALUE_STRING ? p.getValueAsDouble(-1) : p.getDoubleValue();
            if (v >= 0 && v <= HeaderNumbers.MAX_COUNT) {
                return (long) v;
            }
        }
        return NOT_A_COUNT;
    }

    /** A string, or a number as its text (error codes come both ways); null for null, booleans and containers. */
    public static String text(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_STRING || t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
            return p.getText();
        }
        return null;
    }

    /**
     * A name as an answer gives it ({@code "model": "gpt-4o-mini-2024-07-18"}): a string of 1 to
     * {@link #MOST_NAME_CHARS} chars without control chars; null for anything else. Copies the
     * text: read it once, not per event.
     */
    public static String name(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            return null;
        }
        int length = p.getTextLength();
        return length == 0 || length > MOST_NAME_CHARS ? null : plainName(p.getText());
    }

    /** {@code name} if it holds no control char and is 1 to {@link #MOST_NAME_CHARS} chars long, else null. */
    public static String plainName(String name) {
        if (name == null || name.isEmpty() || name.length() > MOST_NAME_CHARS) {
            return null;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return null;
            }
        }
        return name;
    }

    /** The length in chars of a string value without copying it; 0 for anything else. */
    public static int stringLength(JsonParser p) throws IOException {
        return p.currentToken() == JsonToken.VALUE_STRING ? p.getTextLength() : 0;
    }

    /** True for {@code true}, false for anything else (including {@code "true"}: providers send real booleans). */
    public static boolean isTrue(JsonParser p) {
        return p.currentToken() == JsonToken.VALUE_TRUE;
    }
}
