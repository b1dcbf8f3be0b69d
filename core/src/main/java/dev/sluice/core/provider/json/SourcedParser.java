package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The parser {@link JsonWalker} hands to visitors: the walker's own parser, with one difference.
 * {@link #getTextLength()} on a string counts the string's chars in the input the walker read, so
 * weighing a prompt does not decode it (jackson's {@code getTextLength} finishes the string: the
 * whole text decoded and copied into the parser's buffers, which for an 8 KiB prompt was the
 * largest cost of reading a request). The count is the one jackson would give: an escape is one
 * char, a 4-byte UTF-8 sequence two (a surrogate pair). If the input at the token is not what a
 * string looks like, it asks jackson.
 */
final class SourcedParser extends JsonParserDelegate {

    private final byte[] bytes;
    private final int bytesStart;
    private final int bytesEnd;
    private final String chars;

    private SourcedParser(JsonParser parser, byte[] bytes, int start, int end, String chars) {
        super(parser);
        this.bytes = bytes;
        this.bytesStart = start;
        this.bytesEnd = end;
        this.chars = chars;
    }

    static SourcedParser over(JsonParser parser, byte[] json, int offset, int length) {
        return new SourcedParser(parser, json, offset, offset + length, null);
    }

    static SourcedParser over(JsonParser parser, String json) {
        return new SourcedParser(parser, null, 0, 0, json);
    }

    @Override
    public int getTextLength() throws IOException {
        if (currentToken() == JsonToken.VALUE_STRING) {
            int counted = bytes != null ? countBytes() : countChars();
            if (counted >= 0) {
                return counted;
            }
        }
        return super.getTextLength();
    }

    /** Chars of the string whose opening quote the token starts at, in UTF-8 input; -1 if not found. */
    private int countBytes() {
        long at = delegate.currentTokenLocation().getByteOffset();
        if (at < 0 || at >= bytesEnd - bytesStart) {
            return -1;
        }
        int i = bytesStart + (int) at;
        if (bytes[i] != '"') {
            return -1;
        }
        i++;
        int n = 0;
        while (i < bytesEnd) {
            // eight bytes at a time while they are plain ASCII: no quote, no backslash, no high bit
            if (i + 8 <= bytesEnd) {
                long w = (long) LONGS.get(bytes, i);
                if (((w & HIGH) | hasByte(w ^ QUOTES) | hasByte(w ^ BACKSLASHES)) == 0) {
                    i += 8;
                    n += 8;
                    continue;
                }
            }
            int c = bytes[i] & 0xFF;
            if (c == '"') {
                return n;
            }
            if (c == '\\') {
                i += i + 1 < bytesEnd && bytes[i + 1] == 'u' ? 6 : 2;
                n++;
                continue;
            }
            if (c < 0x80 || (c >= 0xC0 && c < 0xF0)) {
                n++; // one char: ASCII, or the lead byte of a 2- or 3-byte sequence
            } else if (c >= 0xF0) {
                n += 2; // a 4-byte sequence is a surrogate pair
            } // continuation bytes (0x80 to 0xBF) add nothing
            i++;
        }
        return -1;
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH = 0x8080808080808080L;
    private static final long QUOTES = ONES * '"';
    private static final long BACKSLASHES = ONES * '\\';

    /** Non-zero when some byte of {@code w} is zero (for bytes below 0x80, which is all it is asked about). */
    private static long hasByte(long w) {
        return (w - ONES) & ~w & HIGH;
    }

    /** The same over String input. */
    private int countChars() {
        long at = delegate.currentTokenLocation().getCharOffset();
        if (at < 0 || at >= chars.length() || chars.charAt((int) at) != '"') {
            return -1;
        }
        int end = chars.length();
        int i = (int) at + 1;
        int n = 0;
        while (i < end) {
            char c = chars.charAt(i);
            if (c == '"') {
                return n;
            }
            if (c == '\\') {
                i += i + 1 < end && chars.charAt(i + 1) == 'u' ? 6 : 2;
            } else {
                i++;
            }
            n++;
        }
        return -1;
    }
}
