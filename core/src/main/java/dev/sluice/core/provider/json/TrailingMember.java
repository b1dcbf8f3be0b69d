package dev.sluice.core.provider.json;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Finds an object-valued member of a JSON document's root object near the document's end, without
 * reading what comes before it. An OpenAI-format answer puts {@code usage} after the generated
 * text, followed at most by a few scalars ({@code service_tier}, {@code system_fingerprint}) or
 * empty containers ({@code "metadata": {}}), and an Anthropic message ends with its {@code usage}:
 * reading only that end spares walking every token of the answer, a quarter of what Sluice spends
 * on a non-streamed call.
 *
 * <p>Exact for a well-formed document, never a guess: a candidate {@code "name"} counts only if
 * (1) the byte before its opening quote, whitespace aside, is {@code ,} or <code>{</code> (inside a
 * JSON string a quote is always escaped, so such a quote is a real key's), (2) a colon and an
 * object follow it (its brackets matched, strings passed over: the caller's walk of it reads the
 * rest), and (3) everything after that object, up to the document's last byte, is
 * members whose values are scalars or empty containers, then the closing brace: a member of a
 * nested object would leave its container's closing bracket in between. Anything else, including
 * a document that does not end with a brace, finds nothing, and the caller walks the document as
 * before. Of two members with the same name, the later one is found. Never throws.
 */
public final class TrailingMember {

    /** How many candidates, from the end, are tried: the name may also appear as a scalar value after the member. */
    private static final int MOST_CANDIDATES = 4;

    /** The member's name between quotes, as it appears in the document (names with escapes are not looked for). */
    private final byte[] quoted;

    /**
     * How far the search may step back from a place where the name does not start, by the byte
     * found there: to the nearest place where that byte would sit inside the name (Horspool's
     * rule, mirrored), else past the whole name. Most bytes of an answer's end are not in {@code
     * "usage"}: the search reads about one in five instead of every one.
     */
    private final int[] stepBack = new int[256];

    private TrailingMember(String name) {
        this.quoted = ('"' + name + '"').getBytes(StandardCharsets.UTF_8);
        Arrays.fill(stepBack, quoted.length);
        for (int k = quoted.length - 1; k >= 1; k--) {
            stepBack[quoted[k] & 0xFF] = k;
        }
    }

    /** The member called {@code name}. */
    public static TrailingMember named(String name) {
        if (name == null || name.isEmpty() || name.indexOf('"') >= 0 || name.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("a plain member name is needed, not " + name);
        }
        return new TrailingMember(name);
    }

    /**
     * The object value of this root member in {@code json[offset, offset+length)}, as {@code
     * (start << 32) | end} (absolute indexes, end exclusive), or -1 when it is not found as
     * described above.
     */
    public long findObject(byte[] json, int offset, int length) {
        if (json == null || offset < 0 || length <= 0 || offset > json.length - length) {
            return -1;
        }
        try {
            int end = offset + length;
            int close = skipSpaceBackwards(json, offset, end - 1);
            if (close < offset || json[close] != '}') {
                return -1;
            }
            int from = close - quoted.length;
            for (int tried = 0; tried < MOST_CANDIDATES; tried++) {
                int at = lastIndexOf(json, offset, from);
                if (at < 0) {
                    return -1;
                }
                long found = objectAfterKey(json, offset, at, quoted.length, close);
                if (found >= 0) {
                    return found;
                }
                from = at - 1;
            }
            return -1;
        } catch (RuntimeException malformed) {
            return -1;
        }
    }

    /** The object after the key at {@code key} if the key is a member of the root object ending at {@code close}. */
    private static long objectAfterKey(byte[] json, int offset, int key, int keyLength, int close) {
        int before = skipSpaceBackwards(json, offset, key - 1);
        if (before < offset || (json[before] != ',' && json[before] != '{')) {
            return -1;
        }
        int colon = skipSpace(json, key + keyLength, close);
        if (colon >= close || json[colon] != ':') {
            return -1;
        }
        int start = skipSpace(json, colon + 1, close);
        if (start >= close || json[start] != '{') {
            return -1;
        }
        int end = endOfObject(json, start, close);
        if (end < 0 || !onlyScalarMembers(json, end, close)) {
            return -1;
        }
        return ((long) start << 32) | end;
    }

    /**
     * Where the object starting at {@code start} ends (exclusive): the brace that closes it,
     * strings passed over; -1 if it does not close before {@code limit}. Its content is left to the
     * walk that reads it, which fails on a malformed one (the caller then walks the whole
     * document); a second jackson parser here cost 15 % of the engine's time on a call.
     */
    private static int endOfObject(byte[] json, int start, int limit) {
        int depth = 0;
        for (int i = start; i < limit; i++) {
            byte c = json[i];
            if (c == '"') {
                i = endOfString(json, i, limit) - 1; // at the closing quote, or past limit
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
                if (depth == 0) {
                    return c == '}' ? i + 1 : -1;
                }
            }
        }
        return -1;
    }

    /**
     * Whether {@code json[from, close)} is {@code (, "key" : value)*} with whitespace anywhere,
     * each value a string, a number, {@code true}, {@code false}, {@code null}, <code>{}</code> or
     * {@code []}.
     */
    private static boolean onlyScalarMembers(byte[] json, int from, int close) {
        int i = skipSpace(json, from, close);
        while (i < close) {
            if (json[i] != ',') {
                return false;
            }
            i = skipSpace(json, i + 1, close);
            if (i >= close || json[i] != '"') {
                return false;
            }
            i = skipSpace(json, endOfString(json, i, close), close);
            if (i >= close || json[i] != ':') {
                return false;
            }
            i = skipSpace(json, i + 1, close);
            if (i >= close) {
                return false;
            }
            byte c = json[i];
            if (c == '"') {
                i = endOfString(json, i, close);
            } else if (c == '{' || c == '[') {
                i = skipSpace(json, i + 1, close);
                if (i >= close || json[i] != (c == '{' ? '}' : ']')) {
                    return false;
                }
                i++;
            } else {
                int literal = i;
                while (i < close && isLiteralByte(json[i])) {
                    i++;
                }
                if (i == literal) {
                    return false;
                }
            }
            if (i > close) {
                return false;
            }
            i = skipSpace(json, i, close);
        }
        return i == close;
    }

    /** Just past the closing quote of the string opening at {@code quote}; past {@code close} if it does not end before it. */
    private static int endOfString(byte[] json, int quote, int close) {
        for (int i = quote + 1; i < close; i++) {
            byte c = json[i];
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return i + 1;
            }
        }
        return close + 1;
    }

    /** The bytes of a number, {@code true}, {@code false} or {@code null}. */
    static boolean isLiteralByte(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' || c == 'E';
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    private static int skipSpace(byte[] json, int i, int limit) {
        while (i < limit && isSpace(json[i])) {
            i++;
        }
        return i;
    }

    static int skipSpaceBackwards(byte[] json, int offset, int i) {
        while (i >= offset && isSpace(json[i])) {
            i--;
        }
        return i;
    }

    /** The last index at or before {@code from} where the quoted name starts, not before {@code offset}; -1 if none. */
    private int lastIndexOf(byte[] json, int offset, int from) {
        byte[] pattern = quoted;
        int i = from;
        while (i >= offset) {
            int k = 0;
            while (k < pattern.length && json[i + k] == pattern[k]) {
                k++;
            }
            if (k == pattern.length) {
                return i;
            }
            i -= stepBack[json[i] & 0xFF];
        }
        return -1;
    }
}
