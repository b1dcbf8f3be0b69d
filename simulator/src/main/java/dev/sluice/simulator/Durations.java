package dev.sluice.simulator;

import java.time.Duration;

/** Parses and prints the short durations used by the CLI and limit names ("1s", "10s", "1m"). */
public final class Durations {
    private Durations() {}

    /** Parses {@code 250ms}, {@code 10s}, {@code 1m}, {@code 1h}, {@code 1d}, or ISO-8601. */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (t.startsWith("p")) {
                return Duration.parse(text.trim());
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            long n = Long.parseLong(t.substring(0, t.length() - 1));
            switch (t.charAt(t.length() - 1)) {
                case 's':
                    return Duration.ofSeconds(n);
                case 'm':
                    return Duration.ofMinutes(n);
                case 'h':
                    return Duration.ofHours(n);
                case 'd':
                    return Duration.ofDays(n);
                default:
                    break;
            }
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a duration: " + text, e);
        }
        throw new IllegalArgumentException("not a duration (use 250ms, 10s, 1m, 1h): " + text);
    }

    /** The shortest exact form: 1m, 10s, 1500ms. */
    public static String compact(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0 && ms > 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
