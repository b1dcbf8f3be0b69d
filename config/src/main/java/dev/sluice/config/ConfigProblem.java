package dev.sluice.config;

import java.util.Objects;

/**
 * One thing wrong with a configuration: which setting ({@link #path()}, as in the file:
 * {@code providers[1].limits[0].capacity}), the offending value, what is wrong, and where the
 * value came from (a file and line, or an override such as {@code -Dsluice.mode}).
 * {@link #toString()} is the line users read:
 * {@code providers[1].limits[0].capacity: -5 is not allowed, must be > 0 (sluice.yaml line 14)}.
 */
public final class ConfigProblem {
    private final String path;
    private final String value;
    private final String message;
    private final String source;
    private final int line;
    private final int column;

    ConfigProblem(String path, String value, String message, String source, int line, int column) {
        this.path = Objects.requireNonNull(path, "path");
        this.value = value;
        this.message = Objects.requireNonNull(message, "message");
        this.source = source;
        this.line = line;
        this.column = column;
    }

    static ConfigProblem at(String path, String value, String message, Location location) {
        return location == null
                ? new ConfigProblem(path, value, message, null, 0, 0)
                : new ConfigProblem(path, value, message, location.source, location.line, location.column);
    }

    /** The dotted path of the setting; empty for problems with the document as a whole (syntax errors). */
    public String path() {
        return path;
    }

    /** The offending value as written (strings quoted), or null when the problem is a missing value. */
    public String value() {
        return value;
    }

    /** What is wrong and, where possible, what would be right. */
    public String message() {
        return message;
    }

    /** The config file's path, or the override that set the value ({@code -Dsluice.mode}, {@code SLUICE_MODE}, {@code agent argument}); null when unknown. */
    public String source() {
        return source;
    }

    /** 1-based line in {@link #source()}, or 0 when the value did not come from a file. */
    public int line() {
        return line;
    }

    /** 1-based column in {@link #source()}, or 0 when unknown. */
    public int column() {
        return column;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ConfigProblem)) {
            return false;
        }
        ConfigProblem p = (ConfigProblem) o;
        return path.equals(p.path)
                && Objects.equals(value, p.value)
                && message.equals(p.message)
                && Objects.equals(source, p.source)
                && line == p.line
                && column == p.column;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, value, message, source, line, column);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        if (!path.isEmpty()) {
            b.append(path).append(": ");
        }
        b.append(message);
        if (source != null) {
            b.append(" (").append(Location.shortSource(source, line));
            if (line > 0) {
                b.append(" line ").append(line);
            }
            b.append(')');
        }
        return b.toString();
    }
}
