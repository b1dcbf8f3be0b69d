package dev.sluice.core.provider;

import static dev.sluice.core.provider.ParserInputs.ADAPTERS;
import static dev.sluice.core.provider.ParserInputs.NOW;
import static dev.sluice.core.provider.ParserInputs.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.retry.WaitHints;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Every adapter's error classification, over realistic error answers of every provider, damaged
 * ones and bodies that are no error at all: nothing throws, every answer has a class, every wait
 * hint is none or within {@code [0, WaitHints.MAX_MILLIS]}; and the hints providers really send
 * (headers, "try again in", RetryInfo, "Retry after" instants) read exactly.
 */
class ErrorClassificationPropertiesTest {

    static final List<String> HEADER_NAMES = List.of("retry-after", "retry-after-ms", "x-should-retry",
            "content-type", "x-ratelimit-reset-tokens", "anthropic-ratelimit-tokens-reset");

    @Provide
    Arbitrary<Integer> statuses() {
        return Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.just(429)),
                Tuple.of(4, Arbitraries.of(400, 401, 402, 403, 404, 408, 409, 413, 500, 502, 503, 504, 529, 200)),
                Tuple.of(1, Arbitraries.integers()));
    }

    @Provide
    Arbitrary<Headers> errorHeaders() {
        return ParserInputs.headers(HEADER_NAMES, name -> HEADER_NAMES.indexOf(name),
                List.of(Arbitraries.oneOf(ParserInputs.countText(), ParserInputs.httpDate()), ParserInputs.countText(),
                        Arbitraries.of("true", "false", "TRUE", "maybe", ""),
                        Arbitraries.of("application/json", "text/html", "text/plain; charset=utf-8", ""),
                        ParserInputs.durationText(), ParserInputs.rfc3339()));
    }

    /** An error body a provider, a proxy or a broken network could deliver. */
    @Provide
    Arbitrary<byte[]> errorBodies() {
        Arbitrary<byte[]> realistic = realisticErrorBody().map(ParserInputs::utf8);
        return Arbitraries.frequencyOf(
                Tuple.of(5, realistic),
                Tuple.of(3, ParserInputs.damaged(realistic)),
                Tuple.of(2, ParserInputs.brokenBody()),
                Tuple.of(1, hugeMessage()));
    }

    @Provide
    Arbitrary<Long> nows() {
        return Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.just(NOW)),
                Tuple.of(1, Arbitraries.longs().between(0, 4_102_444_800_000L)));
    }

    @Property(tries = 1000)
    void everyAdapterClassifiesAnyAnswerWithAClampedHint(@ForAll("statuses") int status,
            @ForAll("errorHeaders") Headers headers, @ForAll("errorBodies") byte[] body, @ForAll("nows") long now) {
        for (ProviderAdapter adapter : ADAPTERS) {
            ProviderError error = adapter.classifyError(status, headers, body, now);
            assertThat(error).as(adapter.kind()).isNotNull();
            assertThat(error.outcome()).as(adapter.kind()).isNotNull();
            assertClamped(adapter.kind(), error);
        }
    }

    @Provide
    Arbitrary<Long> anyNow() {
        return Arbitraries.oneOf(ParserInputs.epochMillis(), Arbitraries.of(Long.MAX_VALUE, Long.MIN_VALUE));
    }

    /** Gemini's daily quota: its hint is computed from the clock, not parsed. */
    static final String PER_DAY = "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{"
            + "\"violations\":[{\"quotaId\":\"GenerateRequestsPerDayPerProjectPerModel\"}]}]}}";

    @Provide
    Arbitrary<byte[]> bodiesWithPerDay() {
        return Arbitraries.oneOf(errorBodies(), Arbitraries.just(PER_DAY).map(ParserInputs::utf8));
    }

    /** The clock is the caller's: whatever it reads, even the ends of a long, no adapter throws. */
    @Property(tries = 300)
    void anyClockReadingIsTolerated(@ForAll("statuses") int status, @ForAll("bodiesWithPerDay") byte[] body,
            @ForAll("anyNow") long now) {
        for (ProviderAdapter adapter : ADAPTERS) {
            assertClamped(adapter.kind(), adapter.classifyError(status, Headers.empty(), body, now));
        }
    }

    /** Midnight after the last instant a long holds overflowed toEpochMilli, and Gemini's classifyError threw. */
    @org.junit.jupiter.api.Test
    void aDailyQuotaAtTheEndOfTimeIsNoHintNotAnException() {
        for (String kind : List.of("gemini", "vertex-ai")) {
            ProviderError e = ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind)).classifyError(429, Headers.empty(),
                    ParserInputs.utf8(PER_DAY), Long.MAX_VALUE);
            assertThat(e.outcome()).isEqualTo(dev.sluice.core.retry.OutcomeClass.NON_RETRYABLE_POLICY);
            assertThat(e.hasWaitHint()).isFalse();
            assertThat(ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind)).classifyError(429, Headers.empty(),
                    ParserInputs.utf8(PER_DAY), NOW).retryAfterMillis()).isEqualTo(8 * 3_600_000L - 14 * 60_000L
                    + 24 * 3_600_000L - 10 * 3_600_000L);
        }
    }

    static void assertClamped(String kind, ProviderError error) {
        if (error.retryAfterMillis() != ProviderError.NO_HINT) {
            assertThat(error.retryAfterMillis()).as(kind + " " + error).isBetween(0L, WaitHints.MAX_MILLIS);
        }
    }

    @Property(tries = 200)
    void nullHeadersAndBodiesAreAnswersToo(@ForAll("statuses") int status) {
        for (ProviderAdapter adapter : ADAPTERS) {
            assertThat(adapter.classifyError(status, null, null, NOW).outcome()).as(adapter.kind()).isNotNull();
            assertThat(adapter.classifyError(status, Headers.empty(), new byte[0], NOW).outcome()).isNotNull();
        }
    }

    // ------------------------------------------------------------ the hints providers send read exactly

    /** A 429 whose body names no wait, as every provider's envelope could carry it. */
    static final String PLAIN_429 = "{\"type\":\"error\",\"error\":{\"message\":\"Rate limit reached\","
            + "\"type\":\"rate_limit_error\",\"code\":\"rate_limit_exceeded\"}}";

    @Provide
    Arbitrary<BigDecimal> millis() {
        return Arbitraries.oneOf(Arbitraries.bigDecimals().between(BigDecimal.ZERO, BigDecimal.valueOf(100_000_000))
                .ofScale(3), Arbitraries.bigDecimals().between(BigDecimal.ZERO, BigDecimal.valueOf(1_000)).ofScale(0));
    }

    @Property(tries = 300)
    void retryAfterMsOnA429IsEveryAdaptersHint(@ForAll("millis") BigDecimal ms) {
        long expected = ms.setScale(0, RoundingMode.CEILING).longValueExact();
        Headers h = ParserInputs.headersOf("retry-after-ms", ms.toPlainString(), "retry-after", "999");
        for (ProviderAdapter adapter : ADAPTERS) {
            assertThat(adapter.classifyError(429, h, ParserInputs.utf8(PLAIN_429), NOW).retryAfterMillis())
                    .as(adapter.kind() + " retry-after-ms " + ms.toPlainString()).isEqualTo(expected);
        }
    }

    @Provide
    Arbitrary<ParserInputs.Duration> goDurations() {
        return ParserInputs.goDuration();
    }

    @Property(tries = 200)
    void tryAgainInTheMessageIsEveryAdaptersHint(@ForAll("goDurations") ParserInputs.Duration d) {
        String body = "{\"error\":{\"message\":" + json("Rate limit reached for gpt-4o-mini in organization org-x on "
                + "tokens per min (TPM): Limit 200000, Used 195869, Requested 4412. Please try again in " + d.text
                + ". Visit https://platform.openai.com/account/rate-limits") + ",\"type\":\"rate_limit_error\","
                + "\"code\":\"rate_limit_exceeded\"}}";
        for (ProviderAdapter adapter : ADAPTERS) {
            assertThat(adapter.classifyError(429, Headers.empty(), ParserInputs.utf8(body), NOW).retryAfterMillis())
                    .as(adapter.kind() + " " + d).isEqualTo(d.millis);
        }
    }

    @Property(tries = 200)
    void retryInfoIsGooglesHint(@ForAll("goDurations") ParserInputs.Duration d, @ForAll boolean wrapped) {
        String error = "{\"error\":{\"code\":429,\"message\":\"Resource exhausted.\",\"status\":\"RESOURCE_EXHAUSTED\","
                + "\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{"
                + "\"quotaId\":\"GenerateRequestsPerMinutePerProjectPerModel\"}]},{\"@type\":"
                + "\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":" + json(d.text) + "}]}}";
        byte[] body = ParserInputs.utf8(wrapped ? "[" + error + "]" : error);
        for (String kind : List.of("gemini", "vertex-ai")) {
            ProviderError e = ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind)).classifyError(429, Headers.empty(),
                    body, NOW);
            assertThat(e.retryAfterMillis()).as(kind + " " + d).isEqualTo(d.millis);
        }
    }

    @Property(tries = 300)
    void retryAfterAnInstantIsTheGatewaysHint(@ForAll("windowEnds") long at) {
        String instant = Instant.ofEpochMilli(at).atOffset(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        String body = "{\"error\":{\"type\":\"rate_limit_error\",\"code\":\"rate_limit_exceeded\",\"message\":"
                + json("Rate limit of 600 per minute for this key exceeded. Retry after " + instant) + "}}";
        ProviderError e = ADAPTERS.get(ProviderAdapters.KINDS.indexOf("fixed-window-gateway"))
                .classifyError(429, Headers.empty(), ParserInputs.utf8(body), NOW);
        assertThat(e.retryAfterMillis()).as(instant).isEqualTo(at <= NOW ? 0 : Math.min(at - NOW, WaitHints.MAX_MILLIS));
    }

    @Provide
    Arbitrary<Long> windowEnds() {
        // the message form takes four-digit years only
        return Arbitraries.oneOf(Arbitraries.longs().between(NOW - 120_000, NOW + 120_000),
                Arbitraries.longs().between(-62_135_596_800_000L, 253_402_300_799_999L));
    }

    // ------------------------------------------------------------ generators

    /** Error answers shaped like each provider's, their slots filled with valid and odd values. */
    static Arbitrary<String> realisticErrorBody() {
        Arbitrary<String> duration = ParserInputs.durationText();
        Arbitrary<String> count = ParserInputs.countText();
        Arbitrary<String> instant = ParserInputs.rfc3339();
        Arbitrary<String> code = Arbitraries.of("429", "\"429\"", "\"rate_limit_exceeded\"", "\"insufficient_quota\"",
                "\"server_is_overloaded\"", "\"slow_down\"", "\"budget_exceeded\"", "\"no_endpoint_for_policy\"",
                "\"organization_spend_limit_exceeded\"", "null", "529", "4.29e2", "[]", "{}", "true");
        return Arbitraries.oneOf(
                Combinators.combine(duration, code).as((d, c) -> "{\"error\":{\"message\":" + json(
                        "Rate limit reached for gpt-4o-mini in organization org-x on tokens per min (TPM): Limit "
                                + "200000, Used 195869, Requested 4412. Please try again in " + d + ". Visit")
                        + ",\"type\":\"tokens\",\"param\":null,\"code\":" + c + "}}"),
                Combinators.combine(count, count).as((limit, requested) -> "{\"error\":{\"message\":" + json(
                        "Request too large for gpt-4o on tokens per min (TPM): Limit " + limit + ", Requested "
                                + requested + ".") + ",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}"),
                count.map(n -> "{\"error\":{\"code\":\"429\",\"message\":" + json("Requests to the ChatCompletions_Create "
                        + "Operation under Azure OpenAI API version 2024-10-01-preview have exceeded token rate limit "
                        + "of your current AIServices S0 pricing tier. Please retry after " + n + " seconds.") + "}}"),
                count.map(n -> "{\"error\":{\"code\":\"429\",\"message\":" + json("Daily quota exceeded. Please retry "
                        + "after " + n + " seconds.") + "}}"),
                Combinators.combine(Arbitraries.of("rate_limit_error", "overloaded_error", "api_error", "billing_error",
                        "invalid_request_error", ""), Arbitraries.of("", "enforced_spend_limit_reached", "x"), duration)
                        .as((type, detail, d) -> "{\"type\":\"error\",\"error\":{\"type\":" + json(type) + ",\"message\":"
                                + json("This request would exceed the rate limit for your organization of 50,000 "
                                        + "input tokens per minute. Please try again in " + d)
                                + (detail.isEmpty() ? "" : ",\"details\":{\"error_code\":" + json(detail) + "}")
                                + "},\"request_id\":\"req_1\"}"),
                Combinators.combine(duration, duration, Arbitraries.of("PerMinute", "PerDay", "perday", ""), code)
                        .as((d1, d2, per, c) -> "{\"error\":{\"code\":" + c + ",\"message\":" + json("You exceeded "
                                + "your current quota. Please retry in " + d1 + ".") + ",\"status\":"
                                + "\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc."
                                + "QuotaFailure\",\"violations\":[{\"quotaMetric\":\"generativelanguage.googleapis.com/"
                                + "generate_content_free_tier_input_token_count\",\"quotaId\":\"GenerateRequests" + per
                                + "PerProjectPerModel-FreeTier\"}]},{\"@type\":\"type.googleapis.com/google.rpc."
                                + "RetryInfo\",\"retryDelay\":" + json(d2) + "}]}}"),
                Arbitraries.of("[{\"error\":{\"code\":429,\"message\":\"Resource exhausted. Please try again later.\","
                        + "\"status\":\"RESOURCE_EXHAUSTED\"}}]", "[{\"error\":{\"code\":503,\"status\":\"UNAVAILABLE\"}}]",
                        "{\"error\":\"Too many requests\"}", "{\"detail\":\"Rate limit exceeded: try again in 5s\"}",
                        "{\"object\":\"error\",\"message\":\"Requests rate limit exceeded\",\"type\":\"rate_limit\","
                                + "\"code\":\"1300\"}",
                        "{\"error\":{\"type\":\"rate_limit_error\",\"code\":\"rate_limit_exceeded\",\"message\":"
                                + "\"Too many concurrent requests for this key\"}}",
                        "{\"error\":{\"type\":\"budget_exceeded\",\"code\":\"budget_exceeded\",\"message\":\"Daily "
                                + "budget exhausted\"}}"),
                instant.map(i -> "{\"error\":{\"type\":\"rate_limit_error\",\"code\":\"rate_limit_exceeded\","
                        + "\"message\":" + json("Rate limit exceeded for organization. Retry after " + i) + "}}"));
    }

    /** A message far longer than any scan window, its hint at the very end. */
    static Arbitrary<byte[]> hugeMessage() {
        return Combinators.combine(Arbitraries.integers().between(10_000, 300_000), ParserInputs.durationText())
                .as((n, d) -> ParserInputs.utf8("{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":"
                        + json("x".repeat(n) + " Please try again in " + d) + "}}"));
    }
}
