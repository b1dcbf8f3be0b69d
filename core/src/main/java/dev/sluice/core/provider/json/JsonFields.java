package dev.sluice.core.provider.json;

import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Pulls a few scalar fields out of a JSON document by path, e.g. {@code error.message} and
 * {@code error.code} of an error body, without building a tree. Numbers come back as their text,
 * so a code sent as {@code 429} or {@code "429"} reads the same.
 */
public final class JsonFields {

    private JsonFields() {}

    /**
     * The first value found at each of the paths (see {@link JsonVisitor} for the path syntax);
     * paths absent, null or not scalar are missing from the map. Never throws; malformed input
     * yields what was read before the fault.
     */
    public static Map<String, String> pick(byte[] json, String... paths) {
        Picker picker = new Picker(paths);
        JsonWalker.walk(json, picker);
        return picker.found;
    }

    /** Like {@link #pick(byte[], String...)} for JSON text. */
    public static Map<String, String> pick(String json, String... paths) {
        Picker picker = new Picker(paths);
        JsonWalker.walk(json, picker);
        return picker.found;
    }

    private static final class Picker implements JsonVisitor {
        private final Set<String> wanted;
        final Map<String, String> found = new HashMap<>();

        Picker(String... paths) {
            this.wanted = paths == null ? Set.of() : new HashSet<>(Arrays.asList(paths));
        }

        @Override
        public void scalar(String path, JsonParser value) throws IOException {
            if (wanted.contains(path) && !found.containsKey(path)) {
                String text = JsonScalars.text(value);
                if (text != null) {
                    found.put(path, text);
                }
            }
        }

        @Override
        public boolean enter(String path) {
            // Descend only toward a wanted path: keeps a large body (choices, vectors) cheap to scan.
            for (String w : wanted) {
                if (w != null && w.startsWith(path)) {
                    return true;
                }
            }
            return false;
        }
    }
}
