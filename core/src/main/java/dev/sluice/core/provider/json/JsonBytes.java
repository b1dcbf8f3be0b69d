package dev.sluice.core.provider.json;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The pieces of a JSON reader that works on the bytes themselves, for the readers that skip
 * jackson on the shapes providers and SDKs send ({@link PlainCounts}, the OpenAI chat request's
 * plain read). Each takes the input, a position and the end of the input, and answers the position
 * just past what it read, or {@link #DECLINED}.
 *
 * <p>Strict where jackson is strict and stricter where it is lenient, so that a reader built on
 * these can be exact by declining: whatever they accept, jackson reads the same way. They accept
 * RFC 8259 JSON over well-formed UTF-8 and decline the rest: a control char or a broken escape in
 * a string, UTF-8 that is cut, overlong or encodes a surrogate, a number jackson would refuse
 * ({@code 01}, {@code 1.}, {@code +1}) or one longer than {@value #MOST_NUMBER_CHARS} chars, a
 * member name longer than {@value #MOST_NAME_BYTES} bytes or with an escape (a walk decodes it
 * before comparing), containers nested deeper than a reader's own bound. One exception, as
 * jackson's own count has it: {@link #weighedString} takes raw control chars as chars.
 */
public final class JsonBytes {

    /** What a read answers for input it does not take. */
    public static final int DECLINED = -1;

    /** Member names longer than this are declined (jackson's own bound is far above). */
    public static final int MOST_NAME_BYTES = 256;

    /** Numbers longer than this are declined (jackson refuses those over 1,000 chars). */
    public static final int MOST_NUMBER_CHARS = 100;

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = ONES * '"';
    private static final long BACKSLASHES = ONES * '\\';
    private static final long SPACES = ONES * ' ';

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private JsonBytes() {}

    /** The first byte from {@code i} that is not JSON whitespace, or {@code end}. */
    public static int skipSpace(byte[] json, int i, int end) {
        while (i < end) {
            byte c = json[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            i++;
        }
        return i;
    }

    /**
     * A string whose opening quote is at {@code i}, checked: its closing quote's position and its
     * length in chars as jackson decodes it (an escape is one char, a 4-byte UTF-8 sequence two, a
     * surrogate pair), packed as {@code close << 32 | chars}; or {@link #DECLINED}. Read with
     * {@link #close} and {@link #chars}. With the input's {@link #words} long runs of plain text
     * are read eight bytes at a time; without ({@code null}), one byte at a time.
     */
    public static long string(byte[] json, int i, int end, ByteBuffer words) {
        return string(json, i, end, words, false);
    }

    /**
     * {@link #string} for a string a {@link JsonWalker} visitor weighs by {@code getTextLength()}:
     * the walk counts such a string where it stands without checking it for raw control chars
     * ({@link SourcedParser}), so here too they are taken as chars, one each, not declined; and
     * the scan for the closing quote looks for three kinds of byte instead of four (a fifth faster
     * over an 8 KiB prompt).
     */
    public static long weighedString(byte[] json, int i, int end, ByteBuffer words) {
        return string(json, i, end, words, true);
    }

    private static long string(byte[] json, int i, int end, ByteBuffer words, boolean controlsAreChars) {
        if (i >= end || json[i] != '"') {
            return DECLINED;
        }
        int chars = 0;
        i++;
        while (true) {
            int run = i;
            i = controlsAreChars ? firstSpecial(json, words, i, end) : firstSpecialOrControl(json, words, i, end);
            chars += i - run;
            if (i >= end) {
                return DECLINED;
            }
            int c = json[i] & 0xFF;
            if (c == '"') {
                return (long) i << 32 | chars;
            }
            if (c == '\\') {
                i = escapeEnd(json, i + 1, end);
                chars++;
            } else if (c < 0x20) {
                return DECLINED;
            } else {
                int next = utf8End(json, i, end);
                chars += next - i == 4 ? 2 : 1;
                i = next;
            }
            if (i == DECLINED) {
                return DECLINED;
            }
        }
    }

    /** The closing quote's position in what {@link #string} answered. */
    public static int close(long string) {
        return (int) (string >>> 32);
    }

    /** The chars counted in what {@link #string} answered. */
    public static int chars(long string) {
        return (int) string;
    }

    /**
     * The closing quote of a member name whose opening quote is at {@code i}; declined for an
     * escape, a control char, broken UTF-8 or a name over {@value #MOST_NAME_BYTES} bytes.
     */
    public static int nameEnd(byte[] json, int i, int end) {
        if (i >= end || json[i] != '"') {
            return DECLINED;
        }
        int last = Math.min(end, i + 2 + MOST_NAME_BYTES);
        for (i++; i < last; ) {
            int c = json[i] & 0xFF;
            if (c == '"') {
                return i;
            }
            if (c == '\\' || c < 0x20) {
                return DECLINED;
            }
            i = c < 0x80 ? i + 1 : utf8End(json, i, end);
            if (i == DECLINED) {
                return DECLINED;
            }
        }
        return DECLINED;
    }

    /** True when {@code json[from, to)} is {@code name}'s bytes. */
    public static boolean named(byte[] json, int from, int to, byte[] name) {
        if (to - from != name.length) {
            return false;
        }
        for (int k = 0; k < name.length; k++) {
            if (json[from + k] != name[k]) {
                return false;
            }
        }
        return true;
    }

    /** Just past a JSON number at {@code i} ({@code -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?}), or declined. */
    public static int numberEnd(byte[] json, int i, int end) {
        int from = i;
        if (i < end && json[i] == '-') {
            i++;
        }
        int digits = digitsEnd(json, i, end);
        if (digits == i || (json[i] == '0' && digits - i > 1)) {
            return DECLINED;
        }
        i = digits;
        if (i < end && json[i] == '.') {
            int fraction = digitsEnd(json, i + 1, end);
            if (fraction == i + 1) {
                return DECLINED;
            }
            i = fraction;
        }
        if (i < end && (json[i] == 'e' || json[i] == 'E')) {
            i++;
            if (i < end && (json[i] == '+' || json[i] == '-')) {
                i++;
            }
            int exponent = digitsEnd(json, i, end);
            if (exponent == i) {
                return DECLINED;
            }
            i = exponent;
        }
        return i - from > MOST_NUMBER_CHARS ? DECLINED : i;
    }

    private static int digitsEnd(byte[] json, int i, int end) {
        while (i < end && json[i] >= '0' && json[i] <= '9') {
            i++;
        }
        return i;
    }

    /**
     * Just past a plain non-negative integer at {@code i} (no sign, fraction, exponent or leading
     * zero) of at most {@value #MOST_INTEGER_DIGITS} digits, exact as a double; or declined. Read
     * its value with {@link #integer}. A fraction or an exponent after the digits is left to the
     * caller, whose {@link #separator} then declines it.
     */
    public static int integerEnd(byte[] json, int i, int end) {
        int digits = digitsEnd(json, i, end);
        if (digits == i || digits - i > MOST_INTEGER_DIGITS || (json[i] == '0' && digits - i > 1)) {
            return DECLINED;
        }
        return digits;
    }

    /** The value of the digits {@code json[from, to)} that {@link #integerEnd} accepted. */
    public static long integer(byte[] json, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            n = n * 10 + (json[i] - '0');
        }
        return n;
    }

    /** Longer integers are declined by {@link #integerEnd}: up to here a double is exact. */
    public static final int MOST_INTEGER_DIGITS = 15;

    /** Just past {@code true} at {@code i}, or declined. */
    public static int trueEnd(byte[] json, int i, int end) {
        return literalEnd(json, i, end, TRUE);
    }

    /** Just past {@code false} at {@code i}, or declined. */
    public static int falseEnd(byte[] json, int i, int end) {
        return literalEnd(json, i, end, FALSE);
    }

    /** Just past {@code null} at {@code i}, or declined. */
    public static int nullEnd(byte[] json, int i, int end) {
        return literalEnd(json, i, end, NULL);
    }

    private static int literalEnd(byte[] json, int i, int end, byte[] literal) {
        return end - i >= literal.length && named(json, i, i + literal.length, literal) ? i + literal.length : DECLINED;
    }

    /**
     * Just past any value at {@code i}, checked all through, its containers nested at most {@code
     * depthLeft} deep; or declined.
     */
    public static int valueEnd(byte[] json, int i, int end, int depthLeft, ByteBuffer words) {
        if (i >= end) {
            return DECLINED;
        }
        switch (json[i]) {
            case '{':
                return objectEnd(json, i, end, depthLeft, words);
            case '[':
                return arrayEnd(json, i, end, depthLeft, words);
            case '"':
                long string = string(json, i, end, words);
                return string == DECLINED ? DECLINED : close(string) + 1;
            case 't':
                return trueEnd(json, i, end);
            case 'f':
                return falseEnd(json, i, end);
            case 'n':
                return nullEnd(json, i, end);
            default:
                return numberEnd(json, i, end);
        }
    }

    private static int objectEnd(byte[] json, int i, int end, int depthLeft, ByteBuffer words) {
        if (depthLeft <= 0) {
            return DECLINED;
        }
        i = skipSpace(json, i + 1, end);
        if (i < end && json[i] == '}') {
            return i + 1;
        }
        while (true) {
            int name = nameEnd(json, i, end);
            if (name == DECLINED) {
                return DECLINED;
            }
            i = colon(json, name + 1, end);
            if (i == DECLINED) {
                return DECLINED;
            }
            i = separator(json, valueEnd(json, i, end, depthLeft - 1, words), end, '}');
            if (i == DECLINED || json[i] == '}') {
                return i == DECLINED ? DECLINED : i + 1;
            }
            i = skipSpace(json, i + 1, end);
        }
    }

    private static int arrayEnd(byte[] json, int i, int end, int depthLeft, ByteBuffer words) {
        if (depthLeft <= 0) {
            return DECLINED;
        }
        i = skipSpace(json, i + 1, end);
        if (i < end && json[i] == ']') {
            return i + 1;
        }
        while (true) {
            i = separator(json, valueEnd(json, i, end, depthLeft - 1, words), end, ']');
            if (i == DECLINED || json[i] == ']') {
                return i == DECLINED ? DECLINED : i + 1;
            }
            i = skipSpace(json, i + 1, end);
        }
    }

    /** After a member name closing at {@code i - 1}: where its value starts, past the colon; or declined. */
    public static int colon(byte[] json, int i, int end) {
        i = skipSpace(json, i, end);
        return i < end && json[i] == ':' ? skipSpace(json, i + 1, end) : DECLINED;
    }

    /**
     * After an element ending at {@code i} (or {@link #DECLINED}): where the comma before the next
     * one, or the {@code close} of its container, is; declined for anything else.
     */
    public static int separator(byte[] json, int i, int end, char close) {
        if (i == DECLINED) {
            return DECLINED;
        }
        i = skipSpace(json, i, end);
        return i < end && (json[i] == ',' || json[i] == close) ? i : DECLINED;
    }

    /** The input seen eight bytes at a time by {@link #string}; one per read, made once. */
    public static ByteBuffer words(byte[] json) {
        return ByteBuffer.wrap(json).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** From {@code i}, the first quote, backslash or non-ASCII byte, or {@code end}. */
    private static int firstSpecial(byte[] json, ByteBuffer words, int i, int end) {
        if (words != null) {
            i = firstSpecialOrTail(words, i, end);
        }
        while (i < end) {
            int c = json[i] & 0xFF;
            if (c == '"' || c == '\\' || c >= 0x80) {
                return i;
            }
            i++;
        }
        return i;
    }

    /**
     * From {@code i}, the first quote, backslash or non-ASCII byte, read eight bytes at a time; or
     * where fewer than eight bytes are left before {@code end}, if none came first. A byte equal to
     * the quote (or the backslash) is a zero byte of the word xored with eight of them, found by
     * the classic borrow test, exact for the lowest such byte (a borrow only marks bytes above a
     * real one); a non-ASCII byte has its high bit. Through a heap {@code ByteBuffer} rather than a
     * {@code VarHandle}: interpreted, a buffer's {@code getLong} is a plain call and a view
     * handle's dispatch costs five times a byte loop (docs/benchmarks.md). Also {@link
     * SourcedParser}'s count.
     */
    static int firstSpecialOrTail(ByteBuffer words, int i, int end) {
        while (i <= end - 8) {
            long w = words.getLong(i);
            long quotes = w ^ QUOTES;
            long backslashes = w ^ BACKSLASHES;
            long found = (((quotes - ONES) & ~quotes) | ((backslashes - ONES) & ~backslashes) | w) & HIGHS;
            if (found != 0) {
                return i + (Long.numberOfTrailingZeros(found) >>> 3);
            }
            i += 8;
        }
        return i;
    }

    /**
     * {@link #firstSpecial}, or a control char first: one below the space, found by the same
     * borrow test. A loop of its own rather than a parameter of that one: the extra test, paid on
     * every word, would cost the weighed strings (the prompt) a fifth of their scan.
     */
    private static int firstSpecialOrControl(byte[] json, ByteBuffer words, int i, int end) {
        // the null test outside the loop keeps it a counted loop, whose index checks the JIT hoists
        if (words != null) {
            while (i <= end - 8) {
                long w = words.getLong(i);
                long quotes = w ^ QUOTES;
                long backslashes = w ^ BACKSLASHES;
                long found = (((quotes - ONES) & ~quotes) | ((backslashes - ONES) & ~backslashes) | (w - SPACES) | w)
                        & HIGHS;
                if (found != 0) {
                    return i + (Long.numberOfTrailingZeros(found) >>> 3);
                }
                i += 8;
            }
        }
        while (i < end) {
            int c = json[i] & 0xFF;
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) {
                return i;
            }
            i++;
        }
        return i;
    }

    /** Just past an escape whose backslash is just before {@code i}, or declined. */
    private static int escapeEnd(byte[] json, int i, int end) {
        if (i >= end) {
            return DECLINED;
        }
        byte e = json[i];
        if (e == 'u') {
            if (end - i < 5) {
                return DECLINED;
            }
            for (int k = 1; k <= 4; k++) {
                if (Character.digit(json[i + k], 16) < 0) {
                    return DECLINED;
                }
            }
            return i + 5;
        }
        boolean known = e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't';
        return known ? i + 1 : DECLINED;
    }

    /**
     * Just past the UTF-8 sequence whose lead byte is at {@code i} (not ASCII), or declined when it
     * is not well-formed (RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF).
     */
    private static int utf8End(byte[] json, int i, int end) {
        int c = json[i] & 0xFF;
        int length;
        int secondLow = 0x80;
        int secondHigh = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            length = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            if (c == 0xE0) {
                secondLow = 0xA0; // not overlong
            } else if (c == 0xED) {
                secondHigh = 0x9F; // not a surrogate
            }
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            if (c == 0xF0) {
                secondLow = 0x90;
            } else if (c == 0xF4) {
                secondHigh = 0x8F; // not above U+10FFFF
            }
        } else {
            return DECLINED;
        }
        if (end - i < length) {
            return DECLINED;
        }
        int second = json[i + 1] & 0xFF;
        if (second < secondLow || second > secondHigh) {
            return DECLINED;
        }
        for (int k = 2; k < length; k++) {
            if ((json[i + k] & 0xC0) != 0x80) {
                return DECLINED;
            }
        }
        return i + length;
    }
}
