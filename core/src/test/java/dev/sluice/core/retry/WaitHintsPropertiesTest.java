package dev.sluice.core.retry;

import static dev.sluice.core.provider.ParserInputs.NOW;
import static dev.sluice.core.retry.WaitHints.MAX_MILLIS;
import static dev.sluice.core.retry.WaitHints.NONE;
import static dev.sluice.core.testing.PropertyRun.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.provider.ParserInputs;
import dev.sluice.core.testing.Gen;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/**
 * Every way a wait hint is parsed is total and clamped: for any text, a hint is {@link
 * WaitHints#NONE} or within {@code [0, MAX_MILLIS]}, and valid durations, instants and dates read
 * exactly (rounded up, never early).
 */
class WaitHintsPropertiesTest {

    static final Gen<String> ANY_VALUE = Gen.oneOf(
            ParserInputs.anyHeaderValue(),
            ParserInputs.durationText(),
            ParserInputs.rfc3339(),
            ParserInputs.httpDate());

    static final Gen<Long> NOWS = Gen.oneOf(Gen.just(NOW), ParserInputs.epochMillis());

    @Test
    void everyParseIsTotalAndClamped() {
        forAll(500, trial -> everyParseIsTotalAndClamped(trial.draw("value", ANY_VALUE), trial.draw("now", NOWS)));
    }

    private static void everyParseIsTotalAndClamped(String value, long now) {
        assertHint(WaitHints.retryAfterMs(value), value);
        assertHint(WaitHints.retryAfter(value, now), value);
        assertHint(WaitHints.seconds(value), value);
        assertHint(WaitHints.goDuration(value), value);
        assertHint(WaitHints.untilInstant(value, now), value);
        assertHint(WaitHints.fromMessage(value, now), value);
        assertHint(WaitHints.fromMessage("Rate limit reached. Please try again in " + value + ". Visit", now), value);
        assertHint(WaitHints.fromMessage("Please retry after " + value, now), value);
        assertHint(
                WaitHints.fromHeaders(ParserInputs.headersOf("retry-after-ms", value, "retry-after", value), now),
                value);
        assertThat(WaitHints.shouldRetry(ParserInputs.headersOf("x-should-retry", value)))
                .isNotNull();
    }

    static void assertHint(long hint, String from) {
        if (hint != NONE) {
            assertThat(hint).as("hint from \"%s\"", abbreviated(from)).isBetween(0L, MAX_MILLIS);
        }
    }

    static String abbreviated(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "... (" + s.length() + " chars)" : s;
    }

    @Test
    void goDurationsReadExactlyRoundedUp() {
        Gen<ParserInputs.Duration> goDurations = ParserInputs.goDuration();
        forAll(500, trial -> {
            ParserInputs.Duration d = trial.draw("duration", goDurations);
            assertThat(WaitHints.goDuration(d.text)).as(d.toString()).isEqualTo(d.millis);
            assertThat(WaitHints.fromMessage("Please try again in " + d.text + ". Visit https://x", NOW))
                    .as(d.toString())
                    .isEqualTo(d.millis);
        });
    }

    @Test
    void instantsCountFromNowAndPassedOnesAreZero() {
        Gen<Long> instants = ParserInputs.epochMillis();
        forAll(500, trial -> {
            long at = trial.draw("at", instants);
            String rfc3339 =
                    Instant.ofEpochMilli(at).atOffset(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            assertThat(WaitHints.untilInstant(rfc3339, NOW)).as(rfc3339).isEqualTo(expectedWait(at));
        });
    }

    @Test
    void httpDatesCountFromNow() {
        Gen<Long> httpInstants = Gen.oneOf(
                Gen.longs(NOW - 3_600_000, NOW + 3_600_000), Gen.longs(-62_135_596_800_000L, 253_402_300_799_999L));
        forAll(300, trial -> {
            long at = trial.draw("at", httpInstants);
            String date = Instant.ofEpochMilli(at).atZone(ZoneOffset.UTC).format(DateTimeFormatter.RFC_1123_DATE_TIME);
            long seconds = Math.floorDiv(at, 1000) * 1000; // an HTTP date has whole seconds
            assertThat(WaitHints.retryAfter(date, NOW)).as(date).isEqualTo(expectedWait(seconds));
        });
    }

    /** The wait until {@code at}: 0 once passed, at most {@link WaitHints#MAX_MILLIS}. */
    static long expectedWait(long at) {
        return at <= NOW ? 0 : Math.min(at - NOW, MAX_MILLIS);
    }

    // ------------------------------------------------------------ regressions the properties found

    /** java.util.regex recursed once per term: a thousand terms overflowed the stack. */
    @Test
    void aDurationOfThousandsOfTermsIsNoHintNotAStackOverflow() {
        String terms = "1s".repeat(20_000);
        assertThat(WaitHints.goDuration(terms)).isEqualTo(NONE);
        assertThat(WaitHints.fromMessage("Please try again in " + terms, NOW)).isEqualTo(NONE);
        assertThat(WaitHints.goDuration("1h2m3s4ms5us6ns")).isEqualTo(3_723_005);
        assertThat(WaitHints.fromMessage("Please try again in 1m2.5s.", NOW)).isEqualTo(62_500);
    }

    /** In doubles 1.1 s was 1100.0000000000002 ms, one too many, and the nanosecond of 999h1ns was lost: one too few. */
    @Test
    void decimalHintsRoundUpExactly() {
        assertThat(WaitHints.seconds("1.1")).isEqualTo(1100);
        assertThat(WaitHints.retryAfter("1.1", NOW)).isEqualTo(1100);
        assertThat(WaitHints.goDuration("1.1s")).isEqualTo(1100);
        assertThat(WaitHints.goDuration("999h1ns")).isEqualTo(999 * 3_600_000L + 1);
        assertThat(WaitHints.retryAfterMs("84.0000000000000001")).isEqualTo(85);
    }

    /** {@code at - now} wrapped around for instants near the earliest a long can hold, and read as a year's wait. */
    @Test
    void anInstantAtTheStartOfTimeHasPassed() {
        assertThat(WaitHints.untilInstant("-292275055-05-17T00:00:00Z", NOW)).isZero();
        assertThat(WaitHints.untilInstant("+292278994-08-17T07:12:55.807Z", NOW))
                .isEqualTo(MAX_MILLIS);
        assertThat(WaitHints.untilInstant("2026-11-29T10:14:30Z", NOW)).isEqualTo(30_000);
    }
}
