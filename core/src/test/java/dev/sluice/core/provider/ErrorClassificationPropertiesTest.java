package dev.sluice.core.provider;

import static dev.sluice.core.provider.ParserInputs.ADAPTERS;
import static dev.sluice.core.provider.ParserInputs.NOW;
import static dev.sluice.core.provider.ParserInputs.json;
import static dev.sluice.core.testing.PropertyRun.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.retry.WaitHints;
import dev.sluice.core.testing.Gen;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every adapter's error classification, over realistic error answers of every provider, damaged
 * ones and bodies that are no error at all: nothing throws, every answer has a class, every wait
 * hint is none or within {@code [0, WaitHints.MAX_MILLIS]}; and the hints providers really send
 * (headers, "try again in", RetryInfo, "Retry after" instants) read exactly.
 */
class ErrorClassificationPropertiesTest {

    static final List<String> HEADER_NAMES = List.of(
            "retry-after",
            "retry-after-ms",
            "x-should-retry",
            "content-type",
            "x-ratelimit-reset-tokens",
            "anthropic-ratelimit-tokens-reset");

    static final Gen<Integer> STATUSES = Gen.<Integer>weighted(5, Gen.just(429))
            .or(4, Gen.of(400, 401, 402, 403, 404, 408, 409, 413, 500, 502, 503, 504, 529, 200))
            .or(1, Gen.ints(Integer.MIN_VALUE, Integer.MAX_VALUE));

    static final Gen<Headers> ERROR_HEADERS = ParserInputs.headers(
            HEADER_NAMES,
            name -> HEADER_NAMES.indexOf(name),
            List.of(
                    Gen.oneOf(ParserInputs.countText(), ParserInputs.httpDate()),
                    ParserInputs.countText(),
                    Gen.of("true", "false", "TRUE", "maybe", ""),
                    Gen.of("application/json", "text/html", "text/plain; charset=utf-8", ""),
                    ParserInputs.durationText(),
                    ParserInputs.rfc3339()));

    /** An error body a provider, a proxy or a broken network could deliver. */
    static final Gen<byte[]> ERROR_BODIES = errorBodies();

    static Gen<byte[]> errorBodies() {
        Gen<byte[]> realistic = realisticErrorBody().map(ParserInputs::utf8);
        return Gen.<byte[]>weighted(5, realistic)
                .or(3, ParserInputs.damaged(realistic))
                .or(2, ParserInputs.brokenBody())
                .or(1, hugeMessage());
    }

    static final Gen<Long> NOWS = Gen.<Long>weighted(8, Gen.just(NOW)).or(1, Gen.longs(0, 4_102_444_800_000L));

    @Test
    void everyAdapterClassifiesAnyAnswerWithAClampedHint() {
        forAll(1000, trial -> {
            int status = trial.draw("status", STATUSES);
            Headers headers = trial.draw("headers", ERROR_HEADERS, Headers::asMap);
            byte[] body = trial.draw("body", ERROR_BODIES);
            long now = trial.draw("now", NOWS);
            for (ProviderAdapter adapter : ADAPTERS) {
                ProviderError error = adapter.classifyError(status, headers, body, now);
                assertThat(error).as(adapter.kind()).isNotNull();
                assertThat(error.outcome()).as(adapter.kind()).isNotNull();
                assertClamped(adapter.kind(), error);
            }
        });
    }

    static final Gen<Long> ANY_NOW = Gen.oneOf(ParserInputs.epochMillis(), Gen.of(Long.MAX_VALUE, Long.MIN_VALUE));

    /** Gemini's daily quota: its hint is computed from the clock, not parsed. */
    static final String PER_DAY = "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{"
            + "\"violations\":[{\"quotaId\":\"GenerateRequestsPerDayPerProjectPerModel\"}]}]}}";

    static final Gen<byte[]> BODIES_WITH_PER_DAY =
            Gen.oneOf(ERROR_BODIES, Gen.just(PER_DAY).map(ParserInputs::utf8));

    /** The clock is the caller's: whatever it reads, even the ends of a long, no adapter throws. */
    @Test
    void anyClockReadingIsTolerated() {
        forAll(300, trial -> {
            int status = trial.draw("status", STATUSES);
            byte[] body = trial.draw("body", BODIES_WITH_PER_DAY);
            long now = trial.draw("now", ANY_NOW);
            for (ProviderAdapter adapter : ADAPTERS) {
                assertClamped(adapter.kind(), adapter.classifyError(status, Headers.empty(), body, now));
            }
        });
    }

    /** Midnight after the last instant a long holds overflowed toEpochMilli, and Gemini's classifyError threw. */
    @Test
    void aDailyQuotaAtTheEndOfTimeIsNoHintNotAnException() {
        for (String kind : List.of("gemini", "vertex-ai")) {
            ProviderError e = ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind))
                    .classifyError(429, Headers.empty(), ParserInputs.utf8(PER_DAY), Long.MAX_VALUE);
            assertThat(e.outcome()).isEqualTo(dev.sluice.core.retry.OutcomeClass.NON_RETRYABLE_POLICY);
            assertThat(e.hasWaitHint()).isFalse();
            assertThat(ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind))
                            .classifyError(429, Headers.empty(), ParserInputs.utf8(PER_DAY), NOW)
                            .retryAfterMillis())
                    .isEqualTo(8 * 3_600_000L - 14 * 60_000L + 24 * 3_600_000L - 10 * 3_600_000L);
        }
    }

    static void assertClamped(String kind, ProviderError error) {
        if (error.retryAfterMillis() != ProviderError.NO_HINT) {
            assertThat(error.retryAfterMillis()).as(kind + " " + error).isBetween(0L, WaitHints.MAX_MILLIS);
        }
    }

    @Test
    void nullHeadersAndBodiesAreAnswersToo() {
        forAll(200, trial -> {
            int status = trial.draw("status", STATUSES);
            for (ProviderAdapter adapter : ADAPTERS) {
                assertThat(adapter.classifyError(status, null, null, NOW).outcome())
                        .as(adapter.kind())
                        .isNotNull();
                assertThat(adapter.classifyError(status, Headers.empty(), new byte[0], NOW)
                                .outcome())
                        .isNotNull();
            }
        });
    }

    // ------------------------------------------------------------ the hints providers send read exactly

    /** A 429 whose body names no wait, as every provider's envelope could carry it. */
    static final String PLAIN_429 = "{\"type\":\"error\",\"error\":{\"message\":\"Rate limit reached\","
            + "\"type\":\"rate_limit_error\",\"code\":\"rate_limit_exceeded\"}}";

    /** Milliseconds as a decimal: to the microsecond up to a day and more, or whole up to a second. */
    static final Gen<BigDecimal> MILLIS = Gen.oneOf(
            Gen.longs(0, 100_000_000_000L).map(micros -> BigDecimal.valueOf(micros, 3)),
            Gen.longs(0, 1_000).map(BigDecimal::valueOf));

    @Test
    void retryAfterMsOnA429IsEveryAdaptersHint() {
        forAll(300, trial -> {
            BigDecimal ms = trial.draw("ms", MILLIS);
            long expected = ms.setScale(0, RoundingMode.CEILING).longValueExact();
            Headers h = ParserInputs.headersOf("retry-after-ms", ms.toPlainString(), "retry-after", "999");
            for (ProviderAdapter adapter : ADAPTERS) {
                assertThat(adapter.classifyError(429, h, ParserInputs.utf8(PLAIN_429), NOW)
                                .retryAfterMillis())
                        .as(adapter.kind() + " retry-after-ms " + ms.toPlainString())
                        .isEqualTo(expected);
            }
        });
    }

    static final Gen<ParserInputs.Duration> GO_DURATIONS = ParserInputs.goDuration();

    @Test
    void tryAgainInTheMessageIsEveryAdaptersHint() {
        forAll(200, trial -> {
            ParserInputs.Duration d = trial.draw("duration", GO_DURATIONS);
            String body = "{\"error\":{\"message\":"
                    + json("Rate limit reached for gpt-4o-mini in organization org-x "
                            + "on tokens per min (TPM): Limit 200000, Used 195869, Requested 4412. Please try again in "
                            + d.text
                            + ". Visit https://platform.openai.com/account/rate-limits")
                    + ",\"type\":\"rate_limit_error\","
                    + "\"code\":\"rate_limit_exceeded\"}}";
            for (ProviderAdapter adapter : ADAPTERS) {
                assertThat(adapter.classifyError(429, Headers.empty(), ParserInputs.utf8(body), NOW)
                                .retryAfterMillis())
                        .as(adapter.kind() + " " + d)
                        .isEqualTo(d.millis);
            }
        });
    }

    @Test
    void retryInfoIsGooglesHint() {
        forAll(200, trial -> {
            ParserInputs.Duration d = trial.draw("duration", GO_DURATIONS);
            boolean wrapped = trial.draw("wrapped", Gen.booleans());
            String error = "{\"error\":{\"code\":429,\"message\":\"Resource exhausted.\",\"status\":"
                    + "\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\","
                    + "\"violations\":[{\"quotaId\":\"GenerateRequestsPerMinutePerProjectPerModel\"}]},{\"@type\":"
                    + "\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":" + json(d.text) + "}]}}";
            byte[] body = ParserInputs.utf8(wrapped ? "[" + error + "]" : error);
            for (String kind : List.of("gemini", "vertex-ai")) {
                ProviderError e = ADAPTERS.get(ProviderAdapters.KINDS.indexOf(kind))
                        .classifyError(429, Headers.empty(), body, NOW);
                assertThat(e.retryAfterMillis()).as(kind + " " + d).isEqualTo(d.millis);
            }
        });
    }

    /** Ends of a gateway's window; the message form takes four-digit years only. */
    static final Gen<Long> WINDOW_ENDS =
            Gen.oneOf(Gen.longs(NOW - 120_000, NOW + 120_000), Gen.longs(-62_135_596_800_000L, 253_402_300_799_999L));

    @Test
    void retryAfterAnInstantIsTheGatewaysHint() {
        forAll(300, trial -> {
            long at = trial.draw("at", WINDOW_ENDS);
            String instant =
                    Instant.ofEpochMilli(at).atOffset(ZoneOffset.UTC).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
            String body = "{\"error\":{\"type\":\"rate_limit_error\",\"code\":\"rate_limit_exceeded\",\"message\":"
                    + json("Rate limit of 600 per minute for this key exceeded. Retry after " + instant) + "}}";
            ProviderError e = ADAPTERS.get(ProviderAdapters.KINDS.indexOf("fixed-window-gateway"))
                    .classifyError(429, Headers.empty(), ParserInputs.utf8(body), NOW);
            assertThat(e.retryAfterMillis())
                    .as(instant)
                    .isEqualTo(at <= NOW ? 0 : Math.min(at - NOW, WaitHints.MAX_MILLIS));
        });
    }

    // ------------------------------------------------------------ generators

    /** Error answers shaped like each provider's, their slots filled with valid and odd values. */
    static Gen<String> realisticErrorBody() {
        Gen<String> duration = ParserInputs.durationText();
        Gen<String> count = ParserInputs.countText();
        Gen<String> instant = ParserInputs.rfc3339();
        Gen<String> code = Gen.of(
                "429",
                "\"429\"",
                "\"rate_limit_exceeded\"",
                "\"insufficient_quota\"",
                "\"server_is_overloaded\"",
                "\"slow_down\"",
                "\"budget_exceeded\"",
                "\"no_endpoint_for_policy\"",
                "\"organization_spend_limit_exceeded\"",
                "null",
                "529",
                "4.29e2",
                "[]",
                "{}",
                "true");
        Gen<String> anthropicType = Gen.of(
                "rate_limit_error", "overloaded_error", "api_error", "billing_error", "invalid_request_error", "");
        Gen<String> anthropicDetail = Gen.of("", "enforced_spend_limit_reached", "x");
        Gen<String> per = Gen.of("PerMinute", "PerDay", "perday", "");
        return Gen.oneOf(
                random -> "{\"error\":{\"message\":"
                        + json(
                                "Rate limit reached for gpt-4o-mini in organization org-x on tokens per min (TPM): Limit "
                                        + "200000, Used 195869, Requested 4412. Please try again in "
                                        + duration.next(random)
                                        + ". Visit")
                        + ",\"type\":\"tokens\",\"param\":null,\"code\":" + code.next(random) + "}}",
                random -> "{\"error\":{\"message\":"
                        + json("Request too large for gpt-4o on tokens per min (TPM): Limit " + count.next(random)
                                + ", Requested " + count.next(random) + ".")
                        + ",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}",
                count.map(n -> "{\"error\":{\"code\":\"429\",\"message\":"
                        + json("Requests to the ChatCompletions_Create "
                                + "Operation under Azure OpenAI API version 2024-10-01-preview have exceeded token rate limit "
                                + "of your current AIServices S0 pricing tier. Please retry after " + n + " seconds.")
                        + "}}"),
                count.map(n -> "{\"error\":{\"code\":\"429\",\"message\":"
                        + json("Daily quota exceeded. Please retry " + "after " + n + " seconds.") + "}}"),
                random -> {
                    String type = anthropicType.next(random);
                    String detail = anthropicDetail.next(random);
                    return "{\"type\":\"error\",\"error\":{\"type\":" + json(type) + ",\"message\":"
                            + json("This request would exceed the rate limit for your organization of 50,000 "
                                    + "input tokens per minute. Please try again in " + duration.next(random))
                            + (detail.isEmpty() ? "" : ",\"details\":{\"error_code\":" + json(detail) + "}")
                            + "},\"request_id\":\"req_1\"}";
                },
                random -> {
                    String d1 = duration.next(random);
                    String d2 = duration.next(random);
                    return "{\"error\":{\"code\":" + code.next(random) + ",\"message\":"
                            + json("You exceeded " + "your current quota. Please retry in " + d1 + ".") + ",\"status\":"
                            + "\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc."
                            + "QuotaFailure\",\"violations\":[{\"quotaMetric\":\"generativelanguage.googleapis.com/"
                            + "generate_content_free_tier_input_token_count\",\"quotaId\":\"GenerateRequests"
                            + per.next(random) + "PerProjectPerModel-FreeTier\"}]},{\"@type\":\"type.googleapis.com/"
                            + "google.rpc.RetryInfo\",\"retryDelay\":" + json(d2) + "}]}}";
                },
                Gen.of(
                        "[{\"error\":{\"code\":429,\"message\":\"Resource exhausted. Please try again later.\","
                                + "\"status\":\"RESOURCE_EXHAUSTED\"}}]",
                        "[{\"error\":{\"code\":503,\"status\":\"UNAVAILABLE\"}}]",
                        "{\"error\":\"Too many requests\"}",
                        "{\"detail\":\"Rate limit exceeded: try again in 5s\"}",
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
    static Gen<byte[]> hugeMessage() {
        Gen<Integer> lengths = Gen.ints(10_000, 300_000);
        Gen<String> durations = ParserInputs.durationText();
        return random -> {
            int n = lengths.next(random);
            String d = durations.next(random);
            return ParserInputs.utf8("{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":"
                    + json("x".repeat(n) + " Please try again in " + d) + "}}");
        };
    }
}
