package dev.sluice.core.retry;

import static dev.sluice.core.retry.WaitHints.NONE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.provider.Headers;
import dev.sluice.core.retry.WaitHints.ShouldRetry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WaitHintsTest {

    static final long NOW = Instant.parse("2026-11-29T10:14:00Z").toEpochMilli();

    static Headers headers(String... nameValues) {
        Map<String, List<String>> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            map.put(nameValues[i], List.of(nameValues[i + 1]));
        }
        return Headers.of(map);
    }

    @Test
    void retryAfterMsWinsOverRetryAfter() {
        assertThat(WaitHints.fromHeaders(headers("Retry-After", "20", "retry-after-ms", "84.2"), NOW))
                .isEqualTo(85);
        assertThat(WaitHints.fromHeaders(headers("retry-after", "1.5"), NOW)).isEqualTo(1500);
        assertThat(WaitHints.fromHeaders(headers("retry-after", "37"), NOW)).isEqualTo(37_000);
    }

    @Test
    void unparseableRetryAfterMsFallsBackToRetryAfter() {
        assertThat(WaitHints.fromHeaders(headers("retry-after-ms", "soon", "retry-after", "2"), NOW))
                .isEqualTo(2000);
    }

    @Test
    void retryAfterAsHttpDateCountsFromTheGivenNow() {
        assertThat(WaitHints.retryAfter("Sun, 29 Nov 2026 10:14:30 GMT", NOW)).isEqualTo(30_000);
        assertThat(WaitHints.retryAfter("Sun, 29 Nov 2026 10:00:00 GMT", NOW)).isZero();
    }

    @Test
    void junkHeadersGiveNoHint() {
        for (String junk : new String[] {
            null,
            "",
            " ",
            "-1",
            "NaN",
            "Infinity",
            "1e3",
            "0x10",
            "abc",
            "1,5",
            "++1",
            "99999999999999999999999999999999999999999999999"
        }) {
            assertThat(WaitHints.retryAfterMs(junk)).as(junk).isEqualTo(NONE);
            assertThat(WaitHints.retryAfter(junk, NOW)).as(junk).isEqualTo(NONE);
        }
        assertThat(WaitHints.fromHeaders(null, NOW)).isEqualTo(NONE);
        assertThat(WaitHints.fromHeaders(Headers.empty(), NOW)).isEqualTo(NONE);
    }

    @Test
    void absurdWaitsAreClampedNotOverflowed() {
        assertThat(WaitHints.seconds("99999999999999999999")).isEqualTo(WaitHints.MAX_MILLIS);
        assertThat(WaitHints.goDuration("99999999999h")).isEqualTo(WaitHints.MAX_MILLIS);
    }

    @Test
    void goDurationsAsOpenAiAndGroqSendThem() {
        assertThat(WaitHints.goDuration("1s")).isEqualTo(1000);
        assertThat(WaitHints.goDuration("6m0s")).isEqualTo(360_000);
        assertThat(WaitHints.goDuration("20ms")).isEqualTo(20);
        assertThat(WaitHints.goDuration("1m2.5s")).isEqualTo(62_500);
        assertThat(WaitHints.goDuration("1h2m3s")).isEqualTo(3_723_000);
        assertThat(WaitHints.goDuration("7.66s")).isEqualTo(7660);
        assertThat(WaitHints.goDuration("0s")).isZero();
        assertThat(WaitHints.goDuration("0")).isZero();
        assertThat(WaitHints.goDuration("1500us")).isEqualTo(2);
        assertThat(WaitHints.goDuration("250\u00b5s")).isEqualTo(1);
        assertThat(WaitHints.goDuration("10ns")).isEqualTo(1);
        assertThat(WaitHints.goDuration(" 2h ")).isEqualTo(7_200_000);
    }

    @Test
    void notGoDurations() {
        for (String junk : new String[] {null, "", "s", "1", "1x", "-1s", "1 s", "1s2", "ms", "1.2.3s", "abc"}) {
            assertThat(WaitHints.goDuration(junk)).as(junk).isEqualTo(NONE);
        }
    }

    @Test
    void protobufDurationsOfGeminiRetryInfo() {
        assertThat(WaitHints.goDuration("27.4s")).isEqualTo(27_400);
        assertThat(WaitHints.goDuration("29s")).isEqualTo(29_000);
        assertThat(WaitHints.goDuration("29.083414095s")).isEqualTo(29_084);
    }

    @Test
    void openAiMessageHints() {
        String msg = "Rate limit reached for gpt-4o-mini in organization org-x on tokens per min (TPM): Limit 200000, "
                + "Used 195869, Requested 4412. Please try again in 84ms. Visit https://platform.openai.com/account/rate-limits";
        assertThat(WaitHints.fromMessage(msg, NOW)).isEqualTo(84);
        assertThat(WaitHints.fromMessage("Please try again in 1.5s.", NOW)).isEqualTo(1500);
        assertThat(WaitHints.fromMessage("Please try again in 1m2.5s.", NOW)).isEqualTo(62_500);
        assertThat(WaitHints.fromMessage("on requests per day (RPD): Limit 10000. Please try again in 6m0s.", NOW))
                .isEqualTo(360_000);
    }

    @Test
    void groqMessageHint() {
        assertThat(WaitHints.fromMessage(
                        "Rate limit reached for model `llama-3.1-8b-instant` ... "
                                + "Please try again in 5.289s. Need more tokens?",
                        NOW))
                .isEqualTo(5289);
    }

    @Test
    void azureMessageHint() {
        String msg =
                "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-01-preview "
                        + "have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 37 seconds. "
                        + "Please contact Azure support service if you would like to further increase the default rate limit.";
        assertThat(WaitHints.fromMessage(msg, NOW)).isEqualTo(37_000);
        assertThat(WaitHints.fromMessage("Please retry after 1 second.", NOW)).isEqualTo(1000);
    }

    @Test
    void geminiMessageHint() {
        assertThat(WaitHints.fromMessage(
                        "You exceeded your current quota, please check your plan and billing details. "
                                + "Please retry in 29.083414095s.",
                        NOW))
                .isEqualTo(29_084);
        assertThat(WaitHints.fromMessage("Please retry in 651.39ms.", NOW)).isEqualTo(652);
    }

    @Test
    void fixedWindowGatewayInstant() {
        assertThat(WaitHints.fromMessage("Rate limit exceeded for key bucket. Retry after 2026-11-29T10:15:00Z", NOW))
                .isEqualTo(60_000);
        assertThat(WaitHints.fromMessage("Retry after 2026-11-29T11:15:00+01:00.", NOW))
                .isEqualTo(60_000);
        assertThat(WaitHints.fromMessage("Retry after 2026-11-29T10:00:00Z", NOW))
                .as("already passed")
                .isZero();
    }

    @Test
    void messagesThatNameNoTime() {
        assertThat(WaitHints.fromMessage("Resource exhausted. Please try again later.", NOW))
                .isEqualTo(NONE);
        assertThat(WaitHints.fromMessage("Organization rate limit exceeded.", NOW))
                .isEqualTo(NONE);
        assertThat(WaitHints.fromMessage(null, NOW)).isEqualTo(NONE);
        assertThat(WaitHints.fromMessage("", NOW)).isEqualTo(NONE);
        assertThat(WaitHints.fromMessage("try again in ", NOW)).isEqualTo(NONE);
        assertThat(WaitHints.fromMessage("x".repeat(100_000) + " retry after", NOW))
                .isEqualTo(NONE);
        assertThat(WaitHints.fromMessage("try again in 1".repeat(50_000), NOW))
                .as("bounded work")
                .isEqualTo(NONE);
        assertThat(WaitHints.fromMessage("x".repeat(100_000) + " Retry after 2026-11-29T10:15:00Z", NOW))
                .as("a long message still ends with its instant")
                .isEqualTo(60_000);
    }

    @Test
    void anthropicRfc3339Resets() {
        assertThat(WaitHints.untilInstant("2026-11-29T10:14:12Z", NOW)).isEqualTo(12_000);
        assertThat(WaitHints.untilInstant("2026-11-29T10:14:00.250Z", NOW)).isEqualTo(250);
        assertThat(WaitHints.untilInstant("2026-11-29 10:14:01+00:00", NOW)).isEqualTo(1000);
        assertThat(WaitHints.untilInstant("2026-11-29T10:13:00Z", NOW)).isZero();
        assertThat(WaitHints.untilInstant("yesterday", NOW)).isEqualTo(NONE);
        assertThat(WaitHints.untilInstant(null, NOW)).isEqualTo(NONE);
    }

    @Test
    void shouldRetryIsTriState() {
        assertThat(WaitHints.shouldRetry(headers("X-Should-Retry", "true"))).isEqualTo(ShouldRetry.YES);
        assertThat(WaitHints.shouldRetry(headers("x-should-retry", "FALSE"))).isEqualTo(ShouldRetry.NO);
        assertThat(WaitHints.shouldRetry(headers("x-should-retry", "maybe"))).isEqualTo(ShouldRetry.UNSAID);
        assertThat(WaitHints.shouldRetry(Headers.empty())).isEqualTo(ShouldRetry.UNSAID);
        assertThat(WaitHints.shouldRetry(null)).isEqualTo(ShouldRetry.UNSAID);
    }
}
