package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.provider.wire.HeaderNumbers;
import java.io.IOException;

/** Reads one scalar defensively, the way provider JSON needs it: counts may be floats or strings, codes strings or numbers. */
public final class JsonScalars {

    /** What {@link #count} returns for anything that is not a non-negative number. */
    public static final long NOT_A_COUNT = -1;

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

    /** The length in chars of a string value without copying it; 0 for anything else. */
    public static int stringLength(JsonParser p) throws IOException {
        return p.currentToken() == JsonToken.VALUE_STRING ? p.getTextLength() : 0;
    }

    /** True for {@code true}, false for anything else (including {@code "true"}: providers send real booleans). */
    public static boolean isTrue(JsonParser p) {
        return p.currentToken() == JsonToken.VALUE_TRUE;
    }
}
