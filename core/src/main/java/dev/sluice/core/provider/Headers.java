package dev.sluice.core.provider;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Read-only HTTP headers looked up case-insensitively, as libraries hand them over.
 *
 * <p>Every governed call wraps two of these (its request's and its answer's) and reads a dozen
 * names from the answer's, so they are kept in a small open-addressing table of their own: the
 * names as given, hashed and compared with ASCII letters folded to lower case (header names are
 * ASCII tokens, RFC 9110). A case-insensitive {@code TreeMap} spent about a microsecond a call in
 * string comparisons, and a hash map of lower-cased names allocated a string for each name sent in
 * mixed case (HTTP/1.1 answers, and the SDKs' requests).
 */
public final class Headers {

    private static final Headers EMPTY = new Headers(new String[1], new Object[1]);

    /** Slot i holds a name and its values, or null; the length is a power of two, at least twice the names. */
    private final String[] names;

    /** A name's values: its one value as a {@code String} (the common case: no list made), or a {@code List<String>}. */
    private final Object[] values;

    private Headers(String[] names, Object[] values) {
        this.names = names;
        this.values = values;
    }

    /** Wraps a library's header map; names compare case-insensitively, null keys (status lines) are dropped. */
    public static Headers of(Map<String, List<String>> raw) {
        if (raw == null || raw.isEmpty()) {
            return EMPTY;
        }
        int slots = Integer.highestOneBit(raw.size()) << 2; // at most half full
        String[] names = new String[slots];
        Object[] values = new Object[slots];
        for (Map.Entry<String, List<String>> e : raw.entrySet()) {
            String name = e.getKey();
            if (name == null || e.getValue() == null) {
                continue;
            }
            place(names, values, name, e.getValue());
        }
        return new Headers(names, values);
    }

    /**
     * Puts a name's values in the table: in a slot of their own, or after those of the same name
     * given before in another case (or, as pairs, before), in one new list in the order given.
     */
    private static void place(String[] names, Object[] values, String name, Object given) {
        int slot = slotOf(names, name);
        if (names[slot] == null) {
            names[slot] = name;
            values[slot] = given;
        } else {
            List<String> both = new ArrayList<>(asList(values[slot]));
            both.addAll(asList(given));
            values[slot] = both;
        }
    }

    /** A slot's first value, or null; a single value is the slot itself (no list read or made). */
    @SuppressWarnings("unchecked")
    private static String firstOf(Object values) {
        if (values == null || values instanceof String) {
            return (String) values;
        }
        List<String> list = (List<String>) values;
        return list.isEmpty() ? null : list.get(0);
    }

    /** A slot's values as a list (a single value's made now: for the rare reader of every value). */
    @SuppressWarnings("unchecked")
    private static List<String> asList(Object values) {
        return values instanceof String ? Collections.singletonList((String) values) : (List<String>) values;
    }

    /**
     * Wraps headers given as names and values in turn ({@code [name, value, name, value, ...]}, a
     * name repeated for each of its values, in any case), as {@code HttpTransport}'s header pairs
     * give them; pairs with a null name or value are dropped, and so is an odd last name.
     */
    public static Headers ofPairs(String[] pairs) {
        if (pairs == null || pairs.length < 2) {
            return EMPTY;
        }
        int slots = Integer.highestOneBit(pairs.length / 2) << 2; // at most half full
        String[] names = new String[slots];
        Object[] values = new Object[slots];
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            String name = pairs[i];
            String value = pairs[i + 1];
            if (name == null || value == null) {
                continue;
            }
            place(names, values, name, value); // most names come once
        }
        return new Headers(names, values);
    }

    public static Headers empty() {
        return EMPTY;
    }

    /** The first value of a header, trimmed, or null when absent. */
    public String first(String name) {
        String value = firstOf(valuesOf(name));
        return value == null ? null : value.trim();
    }

    /** All values of a header; empty when absent. */
    public List<String> all(String name) {
        Object found = valuesOf(name);
        return found == null ? Collections.emptyList() : Collections.unmodifiableList(asList(found));
    }

    public boolean contains(String name) {
        return valuesOf(name) != null;
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

    /** The headers as a case-insensitive map, made on each call (for reports and tests, not the call path). */
    public Map<String, List<String>> asMap() {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (int i = 0; i < names.length; i++) {
            if (names[i] != null) {
                map.put(names[i], asList(values[i]));
            }
        }
        return Collections.unmodifiableMap(map);
    }

    private Object valuesOf(String name) {
        if (name == null) {
            return null;
        }
        int slot = slotOf(names, name);
        return names[slot] == null ? null : values[slot];
    }

    /** The slot holding {@code name} in any case, else the empty slot where it would go. */
    private static int slotOf(String[] names, String name) {
        int mask = names.length - 1;
        int slot = foldedHash(name) & mask;
        while (names[slot] != null && !sameName(names[slot], name)) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    /**
     * A hash of the name with letters folded, from its length and four of its chars (the first,
     * the middle and the last two) rather than all of them: the names a call looks up differ there
     * ({@code x-ratelimit-reset-tokens} and {@code x-ratelimit-limit-tokens} by length, {@code
     * -limit} and {@code -reset} by their ends), and {@link #sameName} decides anyway. Hashing
     * every char of the dozen names read and the twenty-odd given was a tenth of Sluice's time on
     * a call.
     */
    static int foldedHash(String name) {
        int n = name.length();
        if (n == 0) {
            return 0;
        }
        int h = n;
        h = 31 * h + fold(name.charAt(0));
        h = 31 * h + fold(name.charAt(n >>> 1));
        h = 31 * h + fold(name.charAt(Math.max(0, n - 2)));
        h = 31 * h + fold(name.charAt(n - 1));
        return h ^ (h >>> 16);
    }

    /** Whether two names are the same but for ASCII case; names as given and as looked up are mostly the same string. */
    private static boolean sameName(String a, String b) {
        if (a.length() != b.length()) {
            return false;
        }
        if (a.equals(b)) {
            return true;
        }
        for (int i = 0; i < a.length(); i++) {
            if (fold(a.charAt(i)) != fold(b.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static char fold(char c) {
        return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }

    @Override
    public String toString() {
        return asMap().keySet().toString();
    }
}
