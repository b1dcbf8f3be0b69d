package dev.sluice.core.provider;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Read-only HTTP headers looked up case-insensitively, as libraries hand them over.
 *
 * <p>Names are kept in lower case in a hash map: every governed call builds two of these (its
 * request's and its answer's) and reads a dozen names from the answer's, and a case-insensitive
 * {@code TreeMap} cost about a microsecond a call more in string comparisons. Lower-casing a name
 * that is already lower case (as HTTP/2 sends them, and as Sluice's own names are written) returns
 * the same string, so it costs a scan and nothing is allocated.
 */
public final class Headers {

    private static final Headers EMPTY = new Headers(Collections.emptyMap());

    private final Map<String, List<String>> byName;

    private Headers(Map<String, List<String>> byName) {
        this.byName = byName;
    }

    /** Wraps a library's header map; names compare case-insensitively, null keys (status lines) are dropped. */
    public static Headers of(Map<String, List<String>> raw) {
        if (raw == null || raw.isEmpty()) {
            return EMPTY;
        }
        Map<String, List<String>> map = new HashMap<>(raw.size() * 2);
        for (Map.Entry<String, List<String>> e : raw.entrySet()) {
            if (e.getKey() != null && e.getValue() != null) {
                String name = lowerCase(e.getKey());
                // not merge(key, value, lambda): the first call reads headers on the application's
                // start-up, where the JVM spins a class for each lambda (docs/startup-figures.md)
                List<String> before = map.get(name);
                if (before == null) {
                    map.put(name, e.getValue());
                } else {
                    List<String> both = new ArrayList<>(before);
                    both.addAll(e.getValue());
                    map.put(name, both);
                }
            }
        }
        return new Headers(Collections.unmodifiableMap(map));
    }

    public static Headers empty() {
        return EMPTY;
    }

    /** The first value of a header, trimmed, or null when absent. */
    public String first(String name) {
        List<String> values = byName.get(lowerCase(name));
        if (values == null || values.isEmpty() || values.get(0) == null) {
            return null;
        }
        return values.get(0).trim();
    }

    /** All values of a header; empty when absent. */
    public List<String> all(String name) {
        List<String> values = byName.get(lowerCase(name));
        return values == null ? Collections.emptyList() : Collections.unmodifiableList(values);
    }

    /** The {@code content-length}, or -1 when absent or not a non-negative number. */
    public long contentLength() {
        String value = first("content-length");
        if (value == null || value.isEmpty() || value.length() > 18) {
            return -1;
        }
        long length = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            length = length * 10 + (c - '0');
        }
        return length;
    }

    public boolean contains(String name) {
        return byName.containsKey(lowerCase(name));
    }

    /** The headers by name, names in lower case (look names up in lower case). */
    public Map<String, List<String>> asMap() {
        return byName;
    }

    /** The same string when it has no upper-case letter (the JDK returns it unchanged). */
    private static String lowerCase(String name) {
        return name == null ? null : name.toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return byName.keySet().toString();
    }
}
