package dev.sluice.core.provider;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Read-only HTTP headers looked up case-insensitively, as libraries hand them over. */
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
        TreeMap<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (Map.Entry<String, List<String>> e : raw.entrySet()) {
            if (e.getKey() != null && e.getValue() != null) {
                // not merge(key, value, lambda): the first call reads headers on the application's
                // start-up, where the JVM spins a class for each lambda (docs/startup-figures.md)
                List<String> before = map.get(e.getKey());
                if (before == null) {
                    map.put(e.getKey(), e.getValue());
                } else {
                    List<String> both = new java.util.ArrayList<>(before);
                    both.addAll(e.getValue());
                    map.put(e.getKey(), both);
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
        List<String> values = byName.get(name);
        if (values == null || values.isEmpty() || values.get(0) == null) {
            return null;
        }
        return values.get(0).trim();
    }

    /** All values of a header; empty when absent. */
    public List<String> all(String name) {
        List<String> values = byName.get(name);
        return values == null ? Collections.emptyList() : Collections.unmodifiableList(values);
    }

    public boolean contains(String name) {
        return byName.containsKey(name);
    }

    /** The headers as a case-insensitive map. */
    public Map<String, List<String>> asMap() {
        return byName;
    }

    @Override
    public String toString() {
        return byName.keySet().toString();
    }
}
