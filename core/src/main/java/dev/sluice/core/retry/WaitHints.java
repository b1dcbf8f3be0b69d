package dev.sluice.core.retry;

import dev.sluice.core.LastSeen;
import dev.sluice.core.provider.Headers;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.OffsetDateTime;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns every wait hint providers send into milliseconds from a given now: headers
 * ({@code retry-after-ms}, {@code retry-after}), hints inside error messages (OpenAI, Groq, Azure,
 * Gemini, the fixed-window gateway), protobuf and Go durations, and RFC 3339 instants. Also reads
 * {@code x-should-retry}.
 *
 * <p>Every method is total: input that is absent, negative, non-finite or in no known form yields
 * {@link #NONE}, never an exception. Fractions round up, so a retry never starts early. Time comes
 * from the caller's {@code nowEpochMillis}, never from the system clock.
 */
public final class WaitHints {

    /** No usable hint. Equal to {@code ProviderError.NO_HINT}. */
    public static final long NONE = -1;

    /** Messages longer than this are scanned at head and tail only: hints sit in the first sentences or at the very end. */
    static final int MESSAGE_SCAN_CHARS = 8192;

    /**
     * The longest hint any method returns: longer ones are clamped to it. A year is "do not wait for
     * it" already, and hints converted to nanoseconds and summed stay far from overflow.
     */
    public static final long MAX_MILLIS = 366L * 24 * 3_600_000;

    private static final BigDecimal MAX = BigDecimal.valueOf(MAX_MILLIS);

    /** What {@code x-should-retry} says. Providers' SDKs obey it over any status rule, and so does Sluice. */
    public enum ShouldRetry {
        /** {@code x-should-retry: true}: retry whatever the status. */
        YES,
        /** {@code x-should-retry: false}: never retry. */
        NO,
        /** Absent or neither true nor false: the status decides. */
        UNSAID
    }

    /**
     * The most terms a Go duration may have ({@code 1h2m3s4ms5us6ns} has six) and the longest text
     * read as one. java.util.regex matches each repetition of a group by recursion, so an unbounded
     * {@code (?:term)+} over a header or message of a thousand {@code 1s} throws
     * StackOverflowError, which no parser's catch of RuntimeException stops.
     */
    static final int MAX_GO_TERMS = 16;

    static final int MAX_GO_DURATION_CHARS = 128;

    // A Go duration: one or more <decimal><unit> terms, "ms" before "m" so "84ms" is not 84 minutes.
    private static final String GO_TERM = "(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:ns|us|\u00b5s|\u03bcs|ms|h|m|s)";
    private static final String GO_TERMS = "(?:" + GO_TERM + "){1," + MAX_GO_TERMS + "}";
    private static final Pattern GO_DURATION = Pattern.compile(GO_TERMS);
    private static final Pattern GO_TERM_PARTS =
            Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|\u00b5s|\u03bcs|ms|h|m|s)");

    // "Please try again in 84ms" (OpenAI, Groq), "Please retry after 37 seconds" (Azure),
    // "Please retry in 29.083414095s" (Gemini), "Retry after 2026-11-29T10:15:00Z" (fixed-window gateway).
    private static final Pattern MESSAGE_HINT = Pattern.compile(
            "(?:try again|retry)\\s+(?:in|after)\\s+(?:"
                    + "(\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:[Zz]|[+-]\\d{2}:?\\d{2}))"
                    + "|(" + GO_TERMS + ")(?![\\p{L}\\d])"
                    + "|(\\d+(?:\\.\\d+)?)\\s*(milliseconds?|msecs?|seconds?|secs?|minutes?|mins?|hours?)\\b)",
            Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);

    private WaitHints() {}

    /**
     * The wait the headers ask for: {@code retry-after-ms} (float milliseconds) over
     * {@code retry-after} (float seconds or an HTTP date), as OpenAI's and Anthropic's SDKs read
     * them; {@link #NONE} when neither parses.
     */
    public static long fromHeaders(Headers headers, long nowEpochMillis) {
        if (headers == null) {
            return NONE;
        }
        long ms = retryAfterMs(headers.first("retry-after-ms"));
        return ms != NONE ? ms : retryAfter(headers.first("retry-after"), nowEpochMillis);
    }

    /** {@code retry-after-ms}: a float number of milliseconds. */
    public static long retryAfterMs(String value) {
        return scaled(value, 1);
    }

    /** {@code retry-after}: a float number of seconds, or an HTTP date (RFC 1123). */
    public static long retryAfter(String value, long nowEpochMillis) {
        long seconds = seconds(value);
        if (seconds != NONE || value == null) {
            return seconds;
        }
        try {
            ZonedDateTime at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
            return untilEpochMillis(at.toInstant().toEpochMilli(), nowEpochMillis);
        } catch (RuntimeException notADate) {
            return NONE;
        }
    }

    /** A float number of seconds ({@code "37"}, {@code "1.5"}), as milliseconds. */
    public static long seconds(String value) {
        return scaled(value, 1000);
    }

    /**
     * The first wait hint in a provider's error message, in any of the forms providers write:
     * "try again in 1m2.5s", "retry after 37 seconds", "retry in 29.08s", "Retry after
     * 2026-11-29T10:15:00Z". {@link #NONE} when the message names no time (Vertex's "Please try
     * again later", the gateway's organization bucket).
     */
    public static long fromMessage(String message, long nowEpochMillis) {
        if (message == null || message.isEmpty()) {
            return NONE;
        }
        if (message.length() > 2 * MESSAGE_SCAN_CHARS) {
            long head = fromMessage(message.substring(0, MESSAGE_SCAN_CHARS), nowEpochMillis);
            return head != NONE
                    ? head
                    : fromMessage(message.substring(message.length() - MESSAGE_SCAN_CHARS), nowEpochMillis);
        }
        Matcher m = MESSAGE_HINT.matcher(message);
        while (m.find()) {
            long hint;
            if (m.group(1) != null) {
                hint = untilInstant(m.group(1), nowEpochMillis);
            } else if (m.group(2) != null) {
                hint = goDuration(m.group(2));
            } else {
                hint = scaled(m.group(3), unitMillis(m.group(4)));
            }
            if (hint != NONE) {
                return hint;
            }
        }
        return NONE;
    }

    /**
     * A Go duration ({@code 1s}, {@code 6m0s}, {@code 20ms}, {@code 1m2.5s}, {@code 1h2m3s},
     * {@code 7.66s}, {@code 0}), as OpenAI and Groq send resets; a protobuf JSON duration
     * ({@code "27.4s"}, Gemini's {@code RetryInfo.retryDelay}) is one too. Negative durations are
     * not hints.
     */
    public static long goDuration(String value) {
        if (value == null) {
            return NONE;
        }
        LastSeen.Entry<Long> seen = GO_SEEN.find(value);
        if (seen != null) {
            return seen.value;
        }
        long millis = parseGoDuration(value);
        GO_SEEN.keep(value, millis);
        return millis;
    }

    /**
     * The last durations read: every answer carries two or three resets, mostly the same few texts
     * ({@code 6m0s}, {@code 1s}), and reading one with two regular expressions and BigDecimal
     * arithmetic was a visible part of each call.
     */
    private static final LastSeen<Long> GO_SEEN = new LastSeen<>(32, 64);

    private static long parseGoDuration(String value) {
        String s = value.trim();
        if (s.startsWith("+")) {
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return 0;
        }
        if (s.isEmpty()
                || s.length() > MAX_GO_DURATION_CHARS
                || !GO_DURATION.matcher(s).matches()) {
            return NONE;
        }
        BigDecimal nanos = BigDecimal.ZERO;
        Matcher term = GO_TERM_PARTS.matcher(s);
        while (term.find()) {
            nanos = nanos.add(new BigDecimal(term.group(1)).multiply(BigDecimal.valueOf(unitNanos(term.group(2)))));
        }
        return clampedCeil(nanos.movePointLeft(6));
    }

    /**
     * Milliseconds from now until an RFC 3339 / ISO 8601 instant with an offset (Anthropic's
     * {@code anthropic-ratelimit-*-reset}, the gateway's "Retry after" instant); 0 when it has
     * passed.
     */
    public static long untilInstant(String instant, long nowEpochMillis) {
        if (instant == null || instant.isBlank()) {
            return NONE;
        }
        try {
            String s = instant.trim();
            if (s.length() > 10 && s.charAt(10) == ' ') {
                s = s.substring(0, 10) + 'T' + s.substring(11); // RFC 3339 allows a space separator
            }
            OffsetDateTime at =
                    OffsetDateTime.parse(s.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            return untilEpochMillis(at.toInstant().toEpochMilli(), nowEpochMillis);
        } catch (RuntimeException notAnInstant) {
            return NONE;
        }
    }

    /** What {@code x-should-retry} says; anything but true or false leaves it to the status. */
    public static ShouldRetry shouldRetry(Headers headers) {
        String value = headers == null ? null : headers.first("x-should-retry");
        if ("true".equalsIgnoreCase(value)) {
            return ShouldRetry.YES;
        }
        if ("false".equalsIgnoreCase(value)) {
            return ShouldRetry.NO;
        }
        return ShouldRetry.UNSAID;
    }

    private static long scaled(String value, long millisPerUnit) {
        if (value == null) {
            return NONE;
        }
        String s = value.trim();
        // Digits and one dot only: rejects "NaN", "Infinity", hex, exponents and signs before parsing.
        if (s.isEmpty() || s.length() > 40 || !s.matches("\\d+(?:\\.\\d*)?|\\.\\d+")) {
            return NONE;
        }
        return clampedCeil(new BigDecimal(s).multiply(BigDecimal.valueOf(millisPerUnit)));
    }

    private static long untilEpochMillis(long atEpochMillis, long nowEpochMillis) {
        if (atEpochMillis <= nowEpochMillis) {
            return 0; // compared, not subtracted: an instant near the earliest long wraps the difference positive
        }
        long wait = atEpochMillis - nowEpochMillis;
        return wait < 0 ? MAX_MILLIS : Math.min(wait, MAX_MILLIS);
    }

    /**
     * Decimal, not double, arithmetic: in doubles "1.1" seconds is 1100.0000000000002 ms and rounds
     * up to 1101, and the nanosecond of "999h1ns" is lost and the hint rounds down, early.
     */
    private static long clampedCeil(BigDecimal millis) {
        if (millis.signum() < 0) {
            return NONE;
        }
        BigDecimal whole = millis.setScale(0, RoundingMode.CEILING);
        return whole.compareTo(MAX) >= 0 ? MAX_MILLIS : whole.longValueExact();
    }

    private static long unitNanos(String unit) {
        switch (unit) {
            case "ns":
                return 1;
            case "us":
            case "\u00b5s":
            case "\u03bcs":
                return 1_000;
            case "ms":
                return 1_000_000;
            case "s":
                return 1_000_000_000L;
            case "m":
                return 60_000_000_000L;
            default: // "h"
                return 3_600_000_000_000L;
        }
    }

    private static long unitMillis(String word) {
        String w = word.toLowerCase(Locale.ROOT);
        if (w.startsWith("ms") || w.startsWith("milli")) {
            return 1;
        }
        if (w.startsWith("s")) {
            return 1_000;
        }
        if (w.startsWith("m")) {
            return 60_000;
        }
        return 3_600_000;
    }
}
