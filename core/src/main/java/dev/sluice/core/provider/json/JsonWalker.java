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

    /**
     * Shared, thread-safe; jackson's default read constraints bound nesting depth and token sizes.
     * Its parsers over bytes count strings without decoding them ({@link SourcedParser}).
     */
    static final JsonFactory FACTORY = new SourcedJsonFactory();

    // The walk's scratch, kept from one document to the next by a walker that is reused.
    private String[] paths = new String[16]; // the path of each open container
    private boolean[] array = new boolean[16];

    /**
     * A walker whose scratch is reused by every document it walks ({@link #walkNext}): one per
     * stream of small documents (the events of a streamed answer), so each event costs only the
     * parser. Not thread-safe.
     */
    public JsonWalker() {}

    /** Walks the JSON in {@code json[offset, offset+length)}; true when a whole document was read. */
    public static boolean walk(byte[] json, int offset, int length, JsonVisitor visitor) {
        return new JsonWalker().walkNext(json, offset, length, visitor);
    }

    /** {@link #walk(byte[], int, int, JsonVisitor)} with this walker's scratch. */
    public boolean walkNext(byte[] json, int offset, int length, JsonVisitor visitor) {
        if (json == null || visitor == null || offset < 0 || length <= 0 || offset > json.length - length) {
            return false;
        }
        try (JsonParser p = FACTORY.createParser(json, offset, length)) {
            return walk(p, p, visitor);
        } catch (Exception malformed) {
            return false;
        }
    }

    /** Walks a whole byte array. */
    public static boolean walk(byte[] json, JsonVisitor visitor) {
        return json != null && walk(json, 0, json.length, visitor);
    }

    /** Walks JSON text. */
    public static boolean walk(String json, JsonVisitor visitor) {
        if (json == null || json.isEmpty() || visitor == null) {
            return false;
        }
        try (JsonParser p = FACTORY.createParser(json)) {
            return new JsonWalker().walk(p, new SourcedCharsParser(p, json), visitor);
        } catch (Exception malformed) {
            return false;
        }
    }

    /** {@code view} is {@code p} as visitors see it (it counts strings without decoding them). */
    private boolean walk(JsonParser p, JsonParser view, JsonVisitor visitor) throws Exception {
        int depth = 0;
        String here = ""; // the path of the value the next token starts
        JsonToken t;
        while ((t = p.nextToken()) != null) {
            if (t == JsonToken.FIELD_NAME) {
                here = child(paths[depth - 1], p.currentName());
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
                here = child(paths[depth - 1], ELEMENT);
            }
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                if (!visitor.enter(here)) {
                    long start = offset(p.currentTokenLocation());
                    p.skipChildren();
                    visitor.skipped(here, Math.max(0, offset(p.currentLocation()) - start));
                    if (depth == 0) {
                        return true;
                    }
                    continue;
                }
                if (depth == paths.length) {
                    paths = Arrays.copyOf(paths, depth * 2);
                    array = Arrays.copyOf(array, depth * 2);
                }
                paths[depth] = here;
                array[depth] = t == JsonToken.START_ARRAY;
                depth++;
                continue;
            }
            visitor.scalar(here, view);
            if (depth == 0) {
                return true;
            }
        }
        return false; // input ended inside the document
    }

    /** Stands for an array's elements in {@link #child}; its own instance, so no field name is ever taken for it. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String ELEMENT = new String("[]");

    /**
     * The path of {@code name} (a field, or {@link #ELEMENT}) inside the container at {@code
     * parent}: the same instance as last time when seen before. A stream's events repeat the same
     * ten or so paths; building and hashing each path anew per value was a third of the time of
     * reading an event. Jackson hands out one instance per field name and these paths come from
     * here, so the key is compared by identity, and both hashes are the Strings' cached ones.
     * Two-way: an entry goes in either of two neighbouring slots, so the hundred-odd paths of a
     * request and its answer do not evict each other on every call. Entries are immutable, so racy
     * writes publish whole ones. Long paths are not kept.
     */
    private static String child(String parent, String name) {
        int h = parent.hashCode() * 31 + name.hashCode();
        int slot = (h ^ (h >>> 16)) & (PATH_SLOTS - 2); // even: the pair is slot, slot + 1
        PathEntry first = PATHS[slot];
        if (first != null && first.parent == parent && first.name == name) {
            return first.path;
        }
        PathEntry second = PATHS[slot + 1];
        if (second != null && second.parent == parent && second.name == name) {
            return second.path;
        }
        String made = name == ELEMENT ? parent + "[]" : parent.isEmpty() ? name : parent + "." + name;
        if (made.length() <= MOST_CACHED_PATH) {
            // the newer entry takes the first slot, the one it displaces the second
            PATHS[slot + 1] = first;
            PATHS[slot] = new PathEntry(parent, name, made);
        }
        return made;
    }

    private static final class PathEntry {
        final String parent;
        final String name;
        final String path;

        PathEntry(String parent, String name, String path) {
            this.parent = parent;
            this.name = name;
            this.path = path;
        }
    }

    private static final int PATH_SLOTS = 1_024;
    private static final int MOST_CACHED_PATH = 64;
    private static final PathEntry[] PATHS = new PathEntry[PATH_SLOTS];

    private static long offset(JsonLocation location) {
        long bytes = location.getByteOffset();
        return bytes >= 0 ? bytes : location.getCharOffset();
    }
}
