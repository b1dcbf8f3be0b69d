package dev.sluice.config;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Where a value came from: a line of a config file, or an override source such as
 * {@code -Dsluice.mode}. Problems carry one so users can find what to fix.
 */
final class Location {
    /** The file path as given, or the label of an override source ({@code SLUICE_MODE}). */
    final String source;
    /** 1-based; 0 for overrides, which have no lines. */
    final int line;

    final int column;

    private Location(String source, int line, int column) {
        this.source = source;
        this.line = line;
        this.column = column;
    }

    static Location inFile(String file, int line, int column) {
        return new Location(file, Math.max(line, 1), Math.max(column, 0));
    }

    static Location override(String label) {
        return new Location(label, 0, 0);
    }

    boolean isInFile() {
        return line > 0;
    }

    /** Short form used in messages: the file's name without its directories, or the override label. */
    static String shortSource(String source, int line) {
        if (source == null) {
            return null;
        }
        if (line <= 0) {
            return source;
        }
        try {
            Path name = Paths.get(source).getFileName();
            return name == null ? source : name.toString();
        } catch (RuntimeException invalidPath) {
            return source;
        }
    }

    @Override
    public String toString() {
        return line > 0 ? shortSource(source, line) + " line " + line : source;
    }
}
