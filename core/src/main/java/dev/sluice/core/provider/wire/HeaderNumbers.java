package dev.sluice.core.provider.wire;

import dev.sluice.core.provider.RateLimitSnapshot;

/** Reads the counts of rate-limit headers defensively: {@code "9999"}, {@code "9999.0"}, {@code " 12 "}; {@code -1} and junk are unknown. */
public final class HeaderNumbers {

    /**
     * The largest count read off the wire, in a header or a body: a quadrillion tokens, far beyond
     * any provider's budget or any call's usage. A larger figure is garbage, not a budget.
     */
    public static final long MAX_COUNT = 1_000_000_000_000_000L;

    private HeaderNumbers() {}

    /** A count in {@code [0, MAX_COUNT]} (fractions truncated), or {@link RateLimitSnapshot#UNKNOWN}. */
    public static long count(String value) {
        if (value == null) {
            return RateLimitSnapshot.UNKNOWN;
        }
        String s = value.trim();
        if (s.isEmpty() || s.length() > 30 || !s.matches("\\d+(?:\\.\\d*)?")) {
            return RateLimitSnapshot.UNKNOWN;
        }
        double v = Double.parseDouble(s);
        return v > MAX_COUNT ? RateLimitSnapshot.UNKNOWN : (long) v;
    }
}
