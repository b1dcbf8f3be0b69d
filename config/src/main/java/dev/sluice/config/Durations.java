package dev.sluice.config;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes durations the way config files spell them: {@code 500ms}, {@code 1.5s},
 * {@code 10m}, {@code 1h}, {@code 1d}, or ISO-8601 ({@code PT1M}). Written back in the
 * shortest exact form so derived limit ids and messages read like the file.
 */
final class Durations {
    private static final Pattern SIMPLE = Pattern.compile("(-?\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
    static final String EXAMPLES = "write e.g. 500ms, 10s, 1.5m, 1h, 1d or PT1M";

    private Durations() {}

    /** The duration, or throws IllegalArgumentException with a message fit for a user. */
    static Duration parse(String text) {
        String s = text.trim();
        if (s.startsWith("P") || s.startsWith("-P") || s.startsWith("p")) {
            try {
                return Duration.parse(s.toUpperCase(java.util.Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("\"" + text + "\" is not a duration; " + EXAMPLES);
            }
        }
        Matcher m = SIMPLE.matcher(s);
        if (!m.matches()) {
            if (s.matches("-?\\d+(\\.\\d+)?")) {
                throw new IllegalArgumentException(
                        "\"" + text + "\" has no unit; write e.g. " + s + "s or " + s + "ms");
            }
            throw new IllegalArgumentException("\"" + text + "\" is not a duration; " + EXAMPLES);
        }
        BigDecimal amount = new BigDecimal(m.group(1));
        long nanosPerUnit;
        switch (m.group(2)) {
            case "ms":
                nanosPerUnit = 1_000_000L;
                break;
            case "s":
                nanosPerUnit = 1_000_000_000L;
                break;
            case "m":
                nanosPerUnit = 60_000_000_000L;
                break;
            case "h":
                nanosPerUnit = 3_600_000_000_000L;
                break;
            default:
                nanosPerUnit = 86_400_000_000_000L;
                break;
        }
        BigDecimal nanos = amount.multiply(BigDecimal.valueOf(nanosPerUnit));
        BigInteger whole;
        try {
            whole = nanos.toBigIntegerExact();
        } catch (ArithmeticException finerThanNanos) {
            whole = nanos.toBigInteger();
        }
        BigInteger[] secondsAndNanos = whole.divideAndRemainder(BigInteger.valueOf(1_000_000_000L));
        if (secondsAndNanos[0].bitLength() > 63) {
            throw new IllegalArgumentException("\"" + text + "\" is too long a duration");
        }
        return Duration.ofSeconds(secondsAndNanos[0].longValue(), secondsAndNanos[1].longValue());
    }

    /** The shortest exact spelling: 1d, 6h, 90s, 1500ms; ISO-8601 below a millisecond. */
    static String format(Duration d) {
        if (d.isNegative()) {
            return "-" + format(d.negated());
        }
        if (d.isZero()) {
            return "0s";
        }
        if (d.getNano() % 1_000_000 != 0) {
            return d.toString();
        }
        long ms = d.toMillis();
        if (ms % 86_400_000L == 0) {
            return ms / 86_400_000L + "d";
        }
        if (ms % 3_600_000L == 0) {
            return ms / 3_600_000L + "h";
        }
        if (ms % 60_000L == 0) {
            return ms / 60_000L + "m";
        }
        if (ms % 1_000L == 0) {
            return ms / 1_000L + "s";
        }
        return ms + "ms";
    }
}
