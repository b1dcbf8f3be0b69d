package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.util.Arrays;

/**
 * Walks one JSON document with jackson-core's streaming parser and hands each value to a {@link
 * JsonVisitor} by path. No tree is built (jackson-databind stays out of the agent), so a request or
 * response is read in one pass with memory for the current token only.
 *
 * <p>Never throws: on malformed or truncated input it stops and returns false, and the visitor
 * keeps what it saw before the fault. Content after the first complete root value is ignored.
 */
public final class JsonWalker {

    /** Shared, thread-safe; jackson's default read constraints bound nesting depth and token sizes. */
    static final JsonFactory FACTORY = new JsonFactory();

    private JsonWalker() {}

    /** Walks the JSON in {@code json[offset, offset+length)}; true when a whole document was read. */
    public static boolean walk(byte[] json, int offset, int length, JsonVisitor visitor) {
        if (json == null || visitor == null || offset < 0 || length <= 0 || offset > json.length - length) {
            return false;
        }
        try (JsonParser p = FACTORY.createParser(json, offset, length)) {
            return walk(p, SourcedParser.over(p, json, offset, length), visitor);
        } catch (Exception malformed) {
            return false;
        }
    }

    /** Walks a whole byte array. */
    public static boolean walk(byte[] json, JsonVisitor visitor) {
        return json != null && walk(json, 0, json.length, visitor);
    }

    /** Walks JSON text, e.g. the data of an SSE event. */
    public static boolean walk(String json, JsonVisitor visitor) {
        if (json == null || json.isEmpty() || visitor == null) {
            return false;
        }
        try (JsonParser p = FACTORY.createParser(json)) {
            return walk(p, SourcedParser.over(p, json), visitor);
        } catch (Exception malformed) {
            return false;
        }
    }

    /** {@code view} is {@code p} as visitors see it (it counts strings without decoding them). */
    private static boolean walk(JsonParser p, JsonParser view, JsonVisitor visitor) throws Exception {
        StringBuilder path = new StringBuilder(64);
        int[] base = new int[16]; // path length of each open container
        boolean[] array = new boolean[16];
        int depth = 0;
        JsonToken t;
        while ((t = p.nextToken()) != null) {
            if (t == JsonToken.FIELD_NAME) {
                path.setLength(base[depth - 1]);
                if (base[depth - 1] > 0) {
                    path.append('.');
                }
                path.append(p.currentName());
                continue;
            }
            if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
                if (depth == 0) {
                    return true;
                }
                continue;
            }
            if (depth > 0 && array[depth - 1]) {
                path.setLength(base[depth - 1]);
                path.append("[]");
            }
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                String here = pathOf(path);
                if (!visitor.enter(here)) {
                    long start = offset(p.currentTokenLocation());
                    p.skipChildren();
                    visitor.skipped(here, Math.max(0, offset(p.currentLocation()) - start));
                    if (depth == 0) {
                        return true;
                    }
                    continue;
                }
                if (depth == base.length) {
                    base = Arrays.copyOf(base, depth * 2);
                    array = Arrays.copyOf(array, depth * 2);
                }
                base[depth] = path.length();
                array[depth] = t == JsonToken.START_ARRAY;
                depth++;
                continue;
            }
            visitor.scalar(pathOf(path), view);
            if (depth == 0) {
                return true;
            }
        }
        return false; // input ended inside the document
    }

    /**
     * The path as a String, the same instance as last time when it is one seen before: a stream's
     * events repeat the same ten or so paths, and making each anew was a good part of what
     * reading an event allocated. Direct-mapped by content; entries are Strings, so racy writes
     * publish whole ones. Long paths are not kept.
     */
    private static String pathOf(StringBuilder path) {
        int n = path.length();
        if (n > MOST_CACHED_PATH) {
            return path.toString();
        }
        int h = 0;
        for (int i = 0; i < n; i++) {
            h = 31 * h + path.charAt(i);
        }
        int slot = (h ^ (h >>> 16)) & (PATH_SLOTS - 1);
        String seen = PATHS[slot];
        if (seen != null && seen.contentEquals(path)) {
            return seen;
        }
        String made = path.toString();
        PATHS[slot] = made;
        return made;
    }

    private static final int PATH_SLOTS = 256;
    private static final int MOST_CACHED_PATH = 64;
    private static final String[] PATHS = new String[PATH_SLOTS];

    private static long offset(JsonLocation location) {
        long bytes = location.getByteOffset();
        return bytes >= 0 ? bytes : location.getCharOffset();
    }
}
