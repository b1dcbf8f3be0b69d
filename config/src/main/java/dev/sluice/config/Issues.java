package dev.sluice.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The semantic problems a model object finds in itself (ranges, required values, references
 * between sections), each with the dotted path of the offending value. The same rules serve
 * the builders, which throw on the first build, and the loader, which adds file locations and
 * reports them together with everything else it found.
 */
final class Issues {
    /** One semantic problem; the path is relative to what was validated. */
    static final class Issue {
        final String path;
        /** The offending value as it reads in a message, or null. */
        final String value;

        final String message;

        Issue(String path, String value, String message) {
            this.path = path;
            this.value = value;
            this.message = message;
        }

        @Override
        public String toString() {
            return path.isEmpty() ? message : path + ": " + message;
        }
    }

    private final List<Issue> list = new ArrayList<>();

    List<Issue> list() {
        return Collections.unmodifiableList(list);
    }

    boolean isEmpty() {
        return list.isEmpty();
    }

    void add(String path, Object value, String message) {
        list.add(new Issue(path, value == null ? null : render(value), message));
    }

    void missing(String path) {
        add(path, null, "required but missing");
    }

    /** Adds "{@code v} is not allowed, must be {@code rule}" unless ok. */
    void check(boolean ok, String path, Object value, String rule) {
        if (!ok) {
            add(path, value, render(value) + " is not allowed, must be " + rule);
        }
    }

    /** Throws an IllegalArgumentException naming every issue, for builders used from code. */
    void throwIfAny(String what) {
        if (!list.isEmpty()) {
            throw new IllegalArgumentException("invalid " + what + ": "
                    + list.stream().map(Issue::toString).collect(Collectors.joining("; ")));
        }
    }

    static String join(String prefix, String name) {
        return prefix.isEmpty() ? name : prefix + "." + name;
    }

    static String index(String prefix, String list, int i) {
        return join(prefix, list) + "[" + i + "]";
    }

    /** How a value reads in a message and in {@link ConfigProblem#value()}. */
    static String render(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String) {
            return "\"" + value + "\"";
        }
        if (value instanceof Duration) {
            return Durations.format((Duration) value);
        }
        if (value instanceof Double || value instanceof Float) {
            return number(((Number) value).doubleValue());
        }
        return value.toString();
    }

    /** A double without a spurious ".0" or binary noise: 1, 0.3, 1.2. */
    static String number(double d) {
        if (!Double.isFinite(d)) {
            return Double.toString(d);
        }
        BigDecimal b = new BigDecimal(d).round(new java.math.MathContext(12)).stripTrailingZeros();
        return b.scale() < 0 ? b.setScale(0).toPlainString() : b.toPlainString();
    }
}
