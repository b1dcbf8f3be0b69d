package dev.sluice.core.provider.anthropic;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.headers;
import static dev.sluice.core.provider.ProviderFixtures.post;
import static dev.sluice.core.provider.ProviderFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RateLimitSnapshot.Budget;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.json.JsonFields;
import dev.sluice.core.provider.wire.ApiKeyIds;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AnthropicAdapterTest {

    static final long NOW = Instant.parse("2026-11-29T10:14:30Z").toEpochMilli();
    static final String MESSAGES = "https://api.anthropic.com/v1/messages";
    final AnthropicAdapter adapter = new AnthropicAdapter(() -> NOW);

    @Test
    void recognisesMessagesOnlyOnItsHost() {
        assertThat(adapter.kind()).isEqualTo("anthropic");
        assertThat(adapter.recognises("api.anthropic.com", "/v1/messages")).isTrue();
        assertThat(adapter.recognises("API.Anthropic.com:443", "/v1/messages/")).isTrue();
        assertThat(adapter.recognises("api.anthropic.com", "/v1/messages/count_tokens"))
                .as("token counting is not an LLM call")
                .isFalse();
        assertThat(adapter.recognises("api.anthropic.com", "/v1/messages/batches"))
                .isFalse();
        assertThat(adapter.recognises("api.anthropic.com", "/v1/models")).isFalse();
        assertThat(adapter.recognises("api.anthropic.com.evil.example", "/v1/messages"))
                .isFalse();
        assertThat(adapter.recognises(null, null)).isFalse();
    }

    @Test
    void readsAMessagesRequestWithSystemBlocksToolsAndToolTurns() {
        String tool = "{\"name\":\"get_weather\",\"description\":\"Weather\",\"input_schema\":{\"type\":\"object\"}}";
        String input = "{\"location\":\"Paris\"}";
        String body = "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":1024,\"stream\":true,"
                + "\"system\":[{\"type\":\"text\",\"text\":\"Be brief.\",\"cache_control\":{\"type\":\"ephemeral\"}}]," // 9
                + "\"tools\":[" + tool + "],"
                + "\"messages\":["
                + "{\"role\":\"user\",\"content\":\"Weather in Paris?\"}," // 17
                + "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\",\"signature\":\"s\"},"
                + "{\"type\":\"text\",\"text\":\"Checking.\"}," // 9
                + "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"get_weather\",\"input\":" + input
                + "}]}," // 11 + input
                + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"18C\"}," // 3
                + "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":[{\"type\":\"text\",\"text\":\"sunny\"}]}," // 5
                + "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"AAAA\"}}]}]}";
        RequestFacts f = adapter.readRequest(
                post(MESSAGES, body, "x-api-key", "sk-ant-test", "anthropic-version", "2023-06-01"), ESTIMATOR);

        assertThat(f.providerKind()).isEqualTo("anthropic");
        assertThat(f.operation()).isEqualTo("messages");
        assertThat(f.model()).isEqualTo("claude-sonnet-4-5");
        assertThat(f.streaming()).isTrue();
        assertThat(f.maxOutputTokens()).isEqualTo(1024);
        long characters = 9 + 17 + 9 + 11 + input.length() + 3 + 5 + tool.length();
        assertThat(f.estimatedInputTokens())
                .isEqualTo(ESTIMATOR.estimateInputTokens("claude-sonnet-4-5", characters, 5));
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("sk-ant-test"));
        assertThat(f.providerScope()).isEmpty();
        assertThat(f.providerCharge(Dimension.INPUT_TOKENS)).isEqualTo(f.estimatedInputTokens());
        assertThat(f.providerCharge(Dimension.OUTPUT_TOKENS)).isEqualTo(1024);
        assertThat(f.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(f.estimatedInputTokens() + 1024);
        assertThat(f.providerCharge(Dimension.REQUESTS)).isEqualTo(1);
    }

    @Test
    void aStringSystemPromptAndABearerKeyAreReadToo() {
        RequestFacts f = adapter.readRequest(
                post(
                        MESSAGES,
                        "{\"model\":\"claude-haiku-4-5\",\"max_tokens\":64,"
                                + "\"system\":\"You are terse.\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}",
                        "Authorization",
                        "Bearer sk-ant-oat-1"),
                ESTIMATOR);
        assertThat(f.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens("claude-haiku-4-5", 14 + 2, 2));
        assertThat(f.streaming()).isFalse();
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("sk-ant-oat-1"));
    }

    @Test
    void outputIsTruedUpAndSoIsTheExactInputCount() {
        assertThat(adapter.truesUp(Dimension.OUTPUT_TOKENS)).isTrue();
        assertThat(adapter.truesUp(Dimension.INPUT_TOKENS)).isTrue();
        assertThat(adapter.truesUp(Dimension.REQUESTS)).isFalse();
    }

    @Test
    void countTokensRoutedHereIsAZeroCostCall() {
        RequestFacts f = adapter.readRequest(
                post(
                        "https://api.anthropic.com/v1/messages/count_tokens",
                        "{\"model\":\"claude-sonnet-4-5\",\"messages\":[{\"role\":\"user\",\"content\":\""
                                + "x".repeat(4000) + "\"}]}",
                        "x-api-key",
                        "k"),
                ESTIMATOR);
        assertThat(f.operation()).isEqualTo("messages.count_tokens");
        assertThat(f.estimatedInputTokens()).isZero();
        assertThat(f.maxOutputTokens()).isZero();
        for (Dimension d : Dimension.values()) {
            assertThat(f.providerCharge(d)).as("%s", d).isLessThanOrEqualTo(0);
        }
    }

    @Test
    void malformedRequestsYieldDefaults() {
        for (String body : new String[] {
            null,
            "",
            "not json",
            "{\"model\":",
            "[1,2]",
            "{\"max_tokens\":-5}",
            "{\"max_tokens\":\"lots\",\"stream\":\"yes\",\"system\":{\"a\":1},\"messages\":{\"content\":1}}"
        }) {
            RequestFacts f = adapter.readRequest(post(MESSAGES, body), ESTIMATOR);
            assertThat(f.operation()).isEqualTo("messages");
            assertThat(f.maxOutputTokens()).isEqualTo(RequestFacts.NO_MAX);
            assertThat(f.streaming()).isFalse();
            assertThat(f.estimatedInputTokens()).isPositive();
            assertThat(f.providerCharge(Dimension.OUTPUT_TOKENS)).isZero();
        }
        assertThat(adapter.readRequest(null, ESTIMATOR).providerKind()).isEqualTo("anthropic");
        assertThat(adapter.readRequest(post(MESSAGES, "{\"messages\":[{\"content\":\"abcd\"}]}"), null)
                        .estimatedInputTokens())
                .isPositive();
    }

    // ---------------------------------------------------------------- rate-limit headers

    static Headers anthropicHeaders() {
        return headers(
                "anthropic-ratelimit-requests-limit", "4000",
                "anthropic-ratelimit-requests-remaining", "3999",
                "anthropic-ratelimit-requests-reset", "2026-11-29T10:14:31Z",
                "anthropic-ratelimit-input-tokens-limit", "400000",
                "anthropic-ratelimit-input-tokens-remaining", "391000",
                "anthropic-ratelimit-input-tokens-reset", "2026-11-29T10:14:32Z",
                "anthropic-ratelimit-output-tokens-limit", "80000",
                "anthropic-ratelimit-output-tokens-remaining", "79000",
                "anthropic-ratelimit-output-tokens-reset", "2026-11-29T10:14:30.750Z",
                "anthropic-ratelimit-tokens-limit", "80000",
                "anthropic-ratelimit-tokens-remaining", "79000",
                "anthropic-ratelimit-tokens-reset", "2026-11-29T10:14:30.750Z",
                "anthropic-priority-input-tokens-limit", "10000",
                "anthropic-priority-input-tokens-remaining", "10000",
                "anthropic-priority-input-tokens-reset", "2026-11-29T10:14:30Z",
                "request-id", "req_018EeWyXxfu5pfWkrYcMdjWG");
    }

    @Test
    void readsRequestsInputAndOutputBudgetsWithRfc3339Resets() {
        RateLimitSnapshot s = adapter.readRateLimits(anthropicHeaders(), NOW);
        assertThat(s.budgets()).extracting(Budget::name).containsExactly("requests", "input-tokens", "output-tokens");
        Budget requests = s.budgets().get(0);
        assertThat(requests.dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(requests.limit()).isEqualTo(4000);
        assertThat(requests.remaining()).as("request counts are exact").isEqualTo(3999);
        assertThat(requests.resetAfterMillis()).isEqualTo(1000);
        assertThat(requests.windowMillis()).isEqualTo(60_000);
        Budget input = s.budgets().get(1);
        assertThat(input.dimension()).isEqualTo(Dimension.INPUT_TOKENS);
        assertThat(input.limit()).isEqualTo(400_000);
        assertThat(input.resetAfterMillis()).isEqualTo(2000);
        Budget output = s.budgets().get(2);
        assertThat(output.dimension()).isEqualTo(Dimension.OUTPUT_TOKENS);
        assertThat(output.resetAfterMillis()).isEqualTo(750);
    }

    @Test
    void roundedTokenRemainingIsReadAsTheBottomOfItsBandSoSluiceNeverBelievesInRoomThatIsNotThere() {
        RateLimitSnapshot s = adapter.readRateLimits(anthropicHeaders(), NOW);
        assertThat(s.budgets().get(1).remaining())
                .as("391,000 stands for 390,500..391,499")
                .isEqualTo(390_500);
        assertThat(s.budgets().get(2).remaining()).isEqualTo(78_500);
        assertThat(AnthropicRateLimits.bottomOfRoundingBand(0))
                .as("nothing left is exact")
                .isZero();
        assertThat(AnthropicRateLimits.bottomOfRoundingBand(12_345))
                .as("not rounded: exact")
                .isEqualTo(12_345);
        assertThat(AnthropicRateLimits.bottomOfRoundingBand(3000)).isEqualTo(2500);
        assertThat(AnthropicRateLimits.bottomOfRoundingBand(-1)).isEqualTo(-1);
    }

    @Test
    void theTokensHeaderIsTheTightestOfInputAndOutputSoItIsATotalOnlyWhenAlone() {
        RateLimitSnapshot legacy = adapter.readRateLimits(
                headers(
                        "anthropic-ratelimit-tokens-limit",
                        "100000",
                        "anthropic-ratelimit-tokens-remaining",
                        "60000",
                        "anthropic-ratelimit-tokens-reset",
                        "2026-11-29T10:15:00Z"),
                NOW);
        assertThat(legacy.budgets()).singleElement().satisfies(b -> {
            assertThat(b.name()).isEqualTo("tokens");
            assertThat(b.dimension()).isEqualTo(Dimension.TOTAL_TOKENS);
            assertThat(b.remaining()).isEqualTo(59_500);
            assertThat(b.resetAfterMillis()).isEqualTo(30_000);
        });
    }

    @Test
    void priorityTierHeadersAreIgnored() {
        RateLimitSnapshot s = adapter.readRateLimits(
                headers(
                        "anthropic-priority-input-tokens-limit",
                        "10000",
                        "anthropic-priority-input-tokens-remaining",
                        "9000",
                        "anthropic-priority-output-tokens-limit",
                        "2000"),
                NOW);
        assertThat(s.isEmpty()).isTrue();
    }

    @Test
    void rateLimitHeadersAreReadDefensively() {
        // the simulator's malformed set, among others
        RateLimitSnapshot s = adapter.readRateLimits(
                headers(
                        "anthropic-ratelimit-requests-remaining",
                        "several",
                        "anthropic-ratelimit-requests-reset",
                        "next tuesday",
                        "anthropic-ratelimit-input-tokens-remaining",
                        "1,5k",
                        "anthropic-ratelimit-input-tokens-reset",
                        "2026-13-45T99:99:99Z",
                        "anthropic-ratelimit-output-tokens-limit",
                        "8000",
                        "anthropic-ratelimit-output-tokens-reset",
                        "1700000000"),
                NOW);
        assertThat(s.budgets()).singleElement().satisfies(b -> {
            assertThat(b.name()).isEqualTo("output-tokens");
            assertThat(b.limit()).isEqualTo(8000);
            assertThat(b.remaining()).isEqualTo(RateLimitSnapshot.UNKNOWN);
            assertThat(b.resetAfterMillis()).isEqualTo(RateLimitSnapshot.UNKNOWN);
        });
        assertThat(adapter.readRateLimits(
                                headers(
                                        "anthropic-ratelimit-requests-limit",
                                        "-1",
                                        "anthropic-ratelimit-requests-remaining",
                                        "-1"),
                                NOW)
                        .isEmpty())
                .isTrue();
        assertThat(adapter.readRateLimits(Headers.empty(), NOW).isEmpty()).isTrue();
        assertThat(adapter.readRateLimits(null, NOW).isEmpty()).isTrue();
        assertThat(adapter.readRateLimits(
                                headers(
                                        "anthropic-ratelimit-requests-limit",
                                        "50",
                                        "anthropic-ratelimit-requests-reset",
                                        "2026-11-29T10:00:00Z"),
                                NOW)
                        .budgets()
                        .get(0)
                        .resetAfterMillis())
                .as("a reset in the past is now")
                .isZero();
    }

    // ---------------------------------------------------------------- errors

    static final String ITPM_MESSAGE = "This request would exceed the rate limit for your organization "
            + "(a1b2c3d4-0000-4000-8000-5100ce5e0001) of 50,000 input tokens per minute. For details, refer to: "
            + "https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. "
            + "Please reduce the prompt length or the maximum tokens requested, or try again later.";

    static String error(String type, String message) {
        return "{\"type\":\"error\",\"error\":{\"type\":\"" + type + "\",\"message\":\"" + message + "\"},"
                + "\"request_id\":\"req_011CQ9t1\"}";
    }

    ProviderError classify(int status, String body, String... headerNameValues) {
        return adapter.classifyError(status, headers(headerNameValues), body == null ? null : utf8(body), NOW);
    }

    @Test
    void rateLimitIsCapacityWithRetryAfterAndTheLimitTheMessageNames() {
        ProviderError e = classify(429, error("rate_limit_error", ITPM_MESSAGE), "retry-after", "7");
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.retryAfterMillis()).isEqualTo(7000);
        assertThat(e.limiter()).isEqualTo(Dimension.INPUT_TOKENS);
        assertThat(e.type()).isEqualTo("rate_limit_error");
        assertThat(e.message()).isEqualTo(ITPM_MESSAGE);

        assertThat(classify(429, error("rate_limit_error", "... of 8,000 output tokens per minute. ..."))
                        .limiter())
                .isEqualTo(Dimension.OUTPUT_TOKENS);
        assertThat(classify(429, error("rate_limit_error", "... of 50 requests per minute. ..."))
                        .limiter())
                .isEqualTo(Dimension.REQUESTS);
        ProviderError acceleration = classify(
                429,
                error(
                        "rate_limit_error",
                        "Your organization's usage is increasing too quickly; please ramp up gradually."));
        assertThat(acceleration.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(acceleration.limiter()).isNull();
        assertThat(acceleration.hasWaitHint()).isFalse();
    }

    @Test
    void theMonthlySpendCapIsPolicyAndNeverRetried() {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"You have reached "
                + "your specified workspace API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.\","
                + "\"details\":{\"error_visibility\":\"user_facing\",\"error_code\":\"enforced_spend_limit_reached\"}},"
                + "\"request_id\":\"req_011CQ9t2\"}";
        ProviderError e = classify(429, body);
        assertThat(e.outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(e.code()).isEqualTo("enforced_spend_limit_reached");
        assertThat(e.limiter()).isEqualTo(Dimension.SPEND);
        assertThat(e.hasWaitHint()).isFalse();
        assertThat(classify(400, error("billing_error", "Your credit balance is too low."))
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
    }

    @Test
    void overloadIsTransient() {
        ProviderError e = classify(529, error("overloaded_error", "Overloaded"));
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(e.type()).isEqualTo("overloaded_error");
        assertThat(classify(500, error("api_error", "Internal server error")).outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(529, null).outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(529, error("overloaded_error", "Overloaded"), "retry-after", "2")
                        .retryAfterMillis())
                .isEqualTo(2000);
    }

    @Test
    void clientErrorsAreTheRequestsFault() {
        String[][] cases = {
            {"400", "invalid_request_error"},
            {"401", "authentication_error"},
            {"403", "permission_error"},
            {"404", "not_found_error"},
            {"413", "request_too_large"}
        };
        for (String[] c : cases) {
            ProviderError e = classify(Integer.parseInt(c[0]), error(c[1], "no"));
            assertThat(e.outcome()).as(c[0]).isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
            assertThat(e.type()).isEqualTo(c[1]);
        }
    }

    @Test
    void xShouldRetryIsAuthoritative() {
        assertThat(classify(429, error("rate_limit_error", ITPM_MESSAGE), "x-should-retry", "false")
                        .outcome()
                        .retryable())
                .isFalse();
        assertThat(classify(529, error("overloaded_error", "Overloaded"), "x-should-retry", "false")
                        .outcome()
                        .retryable())
                .isFalse();
        assertThat(classify(400, error("invalid_request_error", "x"), "x-should-retry", "true")
                        .outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
    }

    @Test
    void garbageErrorBodiesNeverThrow() {
        for (String body : new String[] {
            null,
            "",
            "[]",
            "null",
            "{\"error\":\"text\"}",
            "{\"error\":[1]}",
            "<html>",
            "{\"error\":{\"type\":{\"nested\":true}}}",
            "{\"error\":{\"details\":[1,2]}}"
        }) {
            assertThat(classify(429, body).outcome()).as(body).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
            assertThat(classify(529, body).outcome()).as(body).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        }
        Random random = new Random(13);
        for (int i = 0; i < 500; i++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            assertThat(adapter.classifyError(400 + i % 200, null, junk, NOW)).isNotNull();
        }
    }

    // ---------------------------------------------------------------- local rejection

    @Test
    void localRejectionIsAnthropicsOwn429WithSluiceInsideError() {
        RequestFacts facts = RequestFacts.builder("anthropic")
                .model("claude-sonnet-4-5")
                .apiKeyId("k_3f9a1c")
                .estimatedInputTokens(4200)
                .build();
        Rejection r = Rejection.builder(GatewayDecision.QUEUE_DEADLINE_EXCEEDED)
                .limiter(Dimension.OUTPUT_TOKENS)
                .scope("anthropic/prod/tenant=search")
                .tenant("search")
                .trafficClass("interactive")
                .retryAfterMillis(2400)
                .estimatedOutputTokens(800)
                .waitedMillis(300)
                .queueReason("deadline")
                .detail("needs 800, 120 free, refills in 2.4 s")
                .build();
        LocalAnswer a = adapter.localRejection(r, facts);
        assertThat(a.status()).isEqualTo(429);
        assertThat(a.headers())
                .containsEntry("x-should-retry", List.of("false"))
                .containsEntry("retry-after", List.of("3"))
                .containsEntry("retry-after-ms", List.of("2400"))
                .containsEntry("x-sluice-decision", List.of("queue_deadline_exceeded"))
                .containsEntry("content-type", List.of("application/json"));
        String requestId = a.headers().get("request-id").get(0);
        assertThat(requestId).matches("req_sluice_[0-9a-f]{24}");

        Map<String, String> f = JsonFields.pick(
                a.body(),
                "type",
                "request_id",
                "error.type",
                "error.message",
                "error.sluice.gateway_decision",
                "error.sluice.limiter",
                "error.sluice.provider",
                "error.sluice.api_key_id",
                "error.sluice.queue.reason",
                "error.sluice.retry_after_ms");
        assertThat(f)
                .containsEntry("type", "error")
                .containsEntry("request_id", requestId)
                .containsEntry("error.type", "rate_limit_error")
                .containsEntry("error.sluice.gateway_decision", "queue_deadline_exceeded")
                .containsEntry("error.sluice.limiter", "output_tokens")
                .containsEntry("error.sluice.provider", "anthropic")
                .containsEntry("error.sluice.api_key_id", "k_3f9a1c")
                .containsEntry("error.sluice.queue.reason", "deadline")
                .containsEntry("error.sluice.retry_after_ms", "2400");
        assertThat(f.get("error.message"))
                .startsWith(
                        "Rate limited by Sluice: queue deadline exceeded for " + "claude-sonnet-4-5 on output_tokens")
                .endsWith("Please try again in 2.4 seconds.");
        assertThat(WaitHints.fromMessage(f.get("error.message"), NOW)).isEqualTo(2400);
        // what the app's own error handling reads back is what an Anthropic 429 says
        assertThat(adapter.classifyError(429, Headers.of(a.headers()), a.body(), NOW)
                        .type())
                .isEqualTo("rate_limit_error");
        assertThat(new String(a.body(), StandardCharsets.UTF_8)).doesNotContain("sk-ant");
    }

    @Test
    void notAdmissibleDoesNotInviteARetryAndAMissingRejectionStillAnswers() {
        Rejection r = Rejection.builder(GatewayDecision.NOT_ADMISSIBLE)
                .limiter(Dimension.INPUT_TOKENS)
                .retryAfterMillis(60_000)
                .build();
        String message = JsonFields.pick(adapter.localRejection(r, null).body(), "error.message")
                .get("error.message");
        assertThat(message).startsWith("Request too large").doesNotContain("try again");
        LocalAnswer none = adapter.localRejection(null, null);
        assertThat(none.status()).isEqualTo(429);
        assertThat(JsonFields.pick(none.body(), "error.sluice.gateway_decision"))
                .containsEntry("error.sluice.gateway_decision", "rejected_locally");
    }

    @Test
    void waitsAreWrittenAsDecimalSeconds() {
        assertThat(AnthropicLocalRejection.seconds(2400)).isEqualTo("2.4");
        assertThat(AnthropicLocalRejection.seconds(3000)).isEqualTo("3");
        assertThat(AnthropicLocalRejection.seconds(1)).isEqualTo("0.001");
        assertThat(AnthropicLocalRejection.seconds(61_250)).isEqualTo("61.25");
    }

    @Test
    void namesTheOrganizationEveryAnswerWasCountedAgainst() {
        assertThat(adapter.organization(dev.sluice.core.provider.Headers.of(java.util.Map.of(
                        "anthropic-organization-id", java.util.List.of(" 5f0e2b1c-8a7d-4e5f-9c3b-2d1e0f9a8b7c ")))))
                .isEqualTo("5f0e2b1c-8a7d-4e5f-9c3b-2d1e0f9a8b7c");
        assertThat(adapter.organization(dev.sluice.core.provider.Headers.empty()))
                .isNull();
        // a garbled header must not make a scope per garbage value
        assertThat(adapter.organization(dev.sluice.core.provider.Headers.of(
                        java.util.Map.of("anthropic-organization-id", java.util.List.of("<html> {\"x\": 1}")))))
                .isNull();
    }
}
