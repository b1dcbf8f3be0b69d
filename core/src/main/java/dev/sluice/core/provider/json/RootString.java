package dev.sluice.core.provider.json;

import java.nio.charset.StandardCharsets;

/**
 * Finds a string member of a JSON document's root object by reading only the members at either
 * end of the document: forward from its start to the first container, backward from its end
 * (passing small containers), and only then forward past small containers; never past a large
 * one. An answer names its model among its first members (OpenAI's chat completions and
 * responses, Anthropic's messages) or among its last ones (Azure OpenAI writes its members in
 * alphabetical order, after {@code choices}), so the generated text between them is not read.
 *
 * <p>Exact for a well-formed document, never a guess: both ends are read as JSON structure, member
 * by member (strings passed over, a container's brackets matched, strings inside it passed over
 * too), so a name inside a nested object or inside a string is never taken for the root's. A
 * container longer than {@value #MOST_CONTAINER_BYTES} bytes ends the reading from that end; the
 * member is then not found. Values with escapes, control characters or more than
 * {@value JsonScalars#MOST_NAME_CHARS} characters are not taken. Never throws.
 */
public final class RootString {

    /** The longest container passed over: a usage object, filter results; not the generated text. */
    static final int MOST_CONTAINER_BYTES = 4096;

    /** The deepest nesting passed over reading forward. */
    private static final int MOST_DEPTH = 32;

    /** Stands for "gave up at a large container or malformed input" between the readings. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String GAVE_UP = new String("gave up");

    /** Stands for "stopped at the first container", for the backward reading to try first. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String AT_CONTAINER = new String("at a container");

    private final byte[] name;

    private RootString(String name) {
        this.name = name.getBytes(StandardCharsets.UTF_8);
    }

    /** The member called {@code name}. */
    public static RootString named(String name) {
        if (name == null || name.isEmpty() || name.indexOf('"') >= 0 || name.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("a plain member name is needed, not " + name);
        }
        return new RootString(name);
    }

    /** The string value of this root member in {@code json[offset, offset+length)}, or null. */
    public String find(byte[] json, int offset, int length) {
        if (json == null || offset < 0 || length <= 0 || offset > json.length - length) {
            return null;
        }
        try {
            // the members before the first container, then those after the last one, then past the first
            String found = forward(json, offset, offset + length, false);
            if (found == GAVE_UP) {
                return null;
            }
            if (found != AT_CONTAINER) {
                return found;
            }
            found = backward(json, offset, offset + length);
            if (found == GAVE_UP) {
                found = forward(json, offset, offset + length, true);
            }
            return found == GAVE_UP || found == AT_CONTAINER ? null : found;
        } catch (RuntimeException malformed) {
            return null;
        }
    }

    /**
     * From the root's opening brace, member by member: the value, null when the root ends without
     * it, GAVE_UP, or AT_CONTAINER at the first container unless {@code passContainers}.
     */
    private String forward(byte[] b, int start, int end, boolean passContainers) {
        int i = JsonBytes.skipSpace(b, start, end);
        if (i >= end || b[i] != '{') {
            return GAVE_UP;
        }
        i = JsonBytes.skipSpace(b, i + 1, end);
        if (i < end && b[i] == '}') {
            return null;
        }
        while (true) {
            int nameEnd = JsonBytes.nameEnd(b, i, end);
            if (nameEnd == JsonBytes.DECLINED) {
                return GAVE_UP;
            }
            boolean match = JsonBytes.named(b, i + 1, nameEnd, name);
            int v = JsonBytes.colon(b, nameEnd + 1, end);
            if (v == JsonBytes.DECLINED || v >= end) {
                return GAVE_UP;
            }
            if (match) {
                return b[v] == '"' ? value(b, v, end) : null;
            }
            boolean container = b[v] == '{' || b[v] == '[';
            if (container && !passContainers) {
                return AT_CONTAINER;
            }
            int valueEnd = JsonBytes.valueEnd(
                    b, v, container ? Math.min(end, v + MOST_CONTAINER_BYTES) : end, MOST_DEPTH, null);
            i = JsonBytes.separator(b, valueEnd, end, '}');
            if (i == JsonBytes.DECLINED) {
                return GAVE_UP;
            }
            if (b[i] == '}') {
                return null;
            }
            i = JsonBytes.skipSpace(b, i + 1, end);
        }
    }

    /** From the root's closing brace back, member by member: the value, null when the root starts without it, or GAVE_UP. */
    private String backward(byte[] b, int start, int end) {
        int j = TrailingMember.skipSpaceBackwards(b, start, end - 1);
        if (j < start || b[j] != '}') {
            return GAVE_UP;
        }
        j = TrailingMember.skipSpaceBackwards(b, start, j - 1);
        if (j >= start && b[j] == '{') {
            return null; // {}
        }
        while (true) {
            if (j < start) {
                return GAVE_UP;
            }
            byte c = b[j];
            int valueStart;
            if (c == '"') {
                valueStart = openingQuote(b, start, j);
            } else if (c == '}' || c == ']') {
                valueStart = startOfContainer(b, Math.max(start, j - MOST_CONTAINER_BYTES), j);
            } else {
                valueStart = j;
                while (valueStart >= start && TrailingMember.isLiteralByte(b[valueStart])) {
                    valueStart--;
                }
                valueStart = valueStart == j ? -1 : valueStart + 1;
            }
            if (valueStart < 0) {
                return GAVE_UP;
            }
            int k = TrailingMember.skipSpaceBackwards(b, start, valueStart - 1);
            if (k < start || b[k] != ':') {
                return GAVE_UP;
            }
            k = TrailingMember.skipSpaceBackwards(b, start, k - 1);
            if (k < start || b[k] != '"') {
                return GAVE_UP;
            }
            int keyStart = openingQuote(b, start, k);
            if (keyStart < 0) {
                return GAVE_UP;
            }
            if (isName(b, keyStart, k + 1)) {
                return c == '"' ? value(b, valueStart, j + 1) : null;
            }
            k = TrailingMember.skipSpaceBackwards(b, start, keyStart - 1);
            if (k < start) {
                return GAVE_UP;
            }
            if (b[k] == '{') {
                return null; // the root's first member: every member was read
            }
            if (b[k] != ',') {
                return GAVE_UP;
            }
            j = TrailingMember.skipSpaceBackwards(b, start, k - 1);
        }
    }

    /** Whether {@code b[quote, end)} is this name between quotes. */
    private boolean isName(byte[] b, int quote, int end) {
        return JsonBytes.named(b, quote + 1, end - 1, name);
    }

    /**
     * The text of the string opening at {@code quote} if it is a plain name: well-formed, without
     * escapes or control characters, at most {@value JsonScalars#MOST_NAME_CHARS} characters.
     */
    private static String value(byte[] b, int quote, int end) {
        long string = JsonBytes.string(b, quote, end, null);
        if (string == JsonBytes.DECLINED) {
            return null;
        }
        int close = JsonBytes.close(string);
        int chars = JsonBytes.chars(string);
        if (chars == 0 || chars > JsonScalars.MOST_NAME_CHARS) {
            return null;
        }
        for (int k = quote + 1; k < close; k++) {
            if (b[k] == '\\') {
                return null;
            }
        }
        return JsonScalars.plainName(new String(b, quote + 1, close - quote - 1, StandardCharsets.UTF_8));
    }

    /** The bracket opening the container that closes at {@code close}; -1 if it does not open at or after {@code limit}. */
    private static int startOfContainer(byte[] b, int limit, int close) {
        int depth = 0;
        for (int i = close; i >= limit; i--) {
            byte c = b[i];
            if (c == '"') {
                i = openingQuote(b, limit, i);
                if (i < 0) {
                    return -1;
                }
            } else if (c == '}' || c == ']') {
                depth++;
            } else if (c == '{' || c == '[') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        return -1;
    }

    /**
     * The quote opening the string whose closing quote is at {@code close}: the nearest quote before
     * it that no backslash escapes (inside a JSON string every quote is escaped); -1 if none at or
     * after {@code limit}.
     */
    private static int openingQuote(byte[] b, int limit, int close) {
        for (int i = close - 1; i >= limit; i--) {
            if (b[i] == '"') {
                int backslashes = 0;
                for (int k = i - 1; k >= limit && b[k] == '\\'; k--) {
                    backslashes++;
                }
                if (backslashes % 2 == 0) {
                    return i;
                }
            }
        }
        return -1;
    }
}
