package dev.sluice.core.provider.wire;

import dev.sluice.core.provider.RateLimitSnapshot;

/** Reads the counts of rate-limit headers defensively: {@code "9999"}, {@code "9999.0"}, {@code " 12 "}; {@code -1} and junk are unknown. */
public final class HeaderNumbers {

    private HeaderNumbers() {}

    /** A non-negative count (fractions truncated), or {@link RateLimitSnapshot#UNKNOWN}. */
    public static long count(String value) {
        if (value == null) {
            return RateLimitSnapshot.UNKNOWN;
        }
        String s = value.trim();
        if (s.isEmpty() || s.length() > 30 || !s.matches("\\d+(?:\\.\\d*)?")) {
            return RateLimitSnapshot.UNKNOWN;
        }
        double v = Double.parseDouble(s);
        return v >= 9.0e18 ? Long.MAX_VALUE : (long) v;
    }
}
