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
        int n = s.length();
        if (n == 0 || n > 30) {
            return RateLimitSnapshot.UNKNOWN;
        }
        // digits, then optionally a point and more digits (checked by hand: String.matches compiled
        // a regex for every rate-limit header of every answer)
        int digits = 0;
        while (digits < n && isDigit(s.charAt(digits))) {
            digits++;
        }
        if (digits == 0) {
            return RateLimitSnapshot.UNKNOWN;
        }
        if (digits < n) {
            if (s.charAt(digits) != '.') {
                return RateLimitSnapshot.UNKNOWN;
            }
            for (int i = digits + 1; i < n; i++) {
                if (!isDigit(s.charAt(i))) {
                    return RateLimitSnapshot.UNKNOWN;
                }
            }
        } else if (n <= 18) {
            long v = Long.parseLong(s);
            return v > MAX_COUNT ? RateLimitSnapshot.UNKNOWN : v;
        }
        double v = Double.parseDouble(s);
        return v > MAX_COUNT ? RateLimitSnapshot.UNKNOWN : (long) v;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
