package dev.sluice.core.provider.openai;

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
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OpenAiAdapterTest {

    static final long NOW = 1_790_000_000_000L;
    final OpenAiAdapter adapter = new OpenAiAdapter(() -> NOW);

    @Test
    void recognisesTheFourEndpointsOnAnyPort() {
        assertThat(adapter.kind()).isEqualTo("openai");
        for (String path : new String[] {
            "/v1/chat/completions", "/v1/responses", "/v1/completions", "/v1/embeddings", "/v1/chat/completions/"
        }) {
            assertThat(adapter.recognises("api.openai.com", path)).as(path).isTrue();
        }
        assertThat(adapter.recognises("API.OpenAI.com:443", "/v1/responses")).isTrue();
        assertThat(adapter.recognises("api.openai.com", "/v1/models")).isFalse();
        assertThat(adapter.recognises("api.openai.com", "/v1/responses/resp_123"))
                .isFalse();
        assertThat(adapter.recognises("api.openai.com.evil.example", "/v1/responses"))
                .isFalse();
        assertThat(adapter.recognises(null, null)).isFalse();
    }

    @Test
    void readsAChatRequest() {
        String body = "{\"model\":\"gpt-4o-mini\",\"messages\":["
                + "{\"role\":\"system\",\"content\":\"You are terse.\"}," // 14 chars
                + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Describe this\"}," // 13
                + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AAAA\"}}]},"
                + "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\","
                + "\"function\":{\"name\":\"look\",\"arguments\":\"{}\"}}]}]," // 4 + 2
                + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"look\"}}],"
                + "\"max_completion_tokens\":500,\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
        long toolChars = "{\"type\":\"function\",\"function\":{\"name\":\"look\"}}".length();
        RequestFacts f = adapter.readRequest(
                post(
                        "https://api.openai.com/v1/chat/completions",
                        body,
                        "Authorization",
                        "Bearer sk-test",
                        "OpenAI-Organization",
                        "org-x",
                        "OpenAI-Project",
                        "proj_y"),
                ESTIMATOR);

        assertThat(f.providerKind()).isEqualTo("openai");
        assertThat(f.operation()).isEqualTo("chat.completions");
        assertThat(f.model()).isEqualTo("gpt-4o-mini");
        assertThat(f.streaming()).isTrue();
        assertThat(f.streamUsageRequested()).isTrue();
        assertThat(f.maxOutputTokens()).isEqualTo(500);
        assertThat(f.estimatedInputTokens())
                .isEqualTo(ESTIMATOR.estimateInputTokens("gpt-4o-mini", 14 + 13 + 4 + 2 + toolChars, 4));
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("sk-test"));
        assertThat(f.providerScope())
                .containsExactly(Map.entry("organization", "org-x"), Map.entry("project", "proj_y"));
        assertThat(f.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(500);
        assertThat(f.providerCharge(Dimension.REQUESTS)).isEqualTo(1);
    }

    @Test
    void chargesThePromptWhenItExceedsTheOutputCap() {
        String prompt = "x".repeat(4000);
        RequestFacts f = adapter.readRequest(
                post(
                        "https://api.openai.com/v1/chat/completions",
                        "{\"model\":\"gpt-4o\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\""
                                + prompt + "\"}]}"),
                ESTIMATOR);
        assertThat(f.estimatedInputTokens()).isEqualTo(1003);
        assertThat(f.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(1003);
        assertThat(f.streaming()).isFalse();
        assertThat(f.streamUsageRequested()).isFalse();
    }

    @Test
    void readsAResponsesRequestWithItemsAndInstructions() {
        String body = "{\"model\":\"gpt-4.1\",\"instructions\":\"Be kind.\",\"max_output_tokens\":256,\"stream\":true,"
                + "\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"Hello there\"}]},"
                + "{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"42\"}]}";
        RequestFacts f = adapter.readRequest(post("https://api.openai.com/v1/responses", body), ESTIMATOR);
        assertThat(f.operation()).isEqualTo("responses");
        assertThat(f.maxOutputTokens()).isEqualTo(256);
        assertThat(f.streaming()).isTrue();
        assertThat(f.streamUsageRequested())
                .as("Responses streams always end with usage, but the flag is chat's")
                .isFalse();
        assertThat(f.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens("gpt-4.1", 8 + 11 + 2, 3));
        assertThat(f.apiKeyId()).isNull();

        RequestFacts plain = adapter.readRequest(
                post("https://api.openai.com/v1/responses", "{\"model\":\"gpt-4.1\",\"input\":\"Tell me a joke\"}"),
                ESTIMATOR);
        assertThat(plain.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens("gpt-4.1", 14, 1));
        assertThat(plain.maxOutputTokens()).isEqualTo(RequestFacts.NO_MAX);
        assertThat(plain.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(plain.estimatedInputTokens());
    }

    @Test
    void readsEmbeddingsOfTextAndOfTokenIds() {
        RequestFacts text = adapter.readRequest(
                post(
                        "https://api.openai.com/v1/embeddings",
                        "{\"model\":\"text-embedding-3-small\",\"input\":[\"abcd\",\"efgh\"]}"),
                ESTIMATOR);
        assertThat(text.operation()).isEqualTo("embeddings");
        assertThat(text.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens(null, 8, 2));
        RequestFacts ids = adapter.readRequest(
                post(
                        "https://api.openai.com/v1/embeddings",
                        "{\"model\":\"text-embedding-3-small\",\"input\":[[1,2,3],[4,5]]}"),
                ESTIMATOR);
        assertThat(ids.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens(null, 0, 2) + 5);
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
            "{\"max_tokens\":\"lots\",\"stream\":\"yes\",\"messages\":{\"content\":1}}"
        }) {
            RequestFacts f = adapter.readRequest(post("https://api.openai.com/v1/chat/completions", body), ESTIMATOR);
            assertThat(f.operation()).isEqualTo("chat.completions");
            assertThat(f.maxOutputTokens()).isEqualTo(RequestFacts.NO_MAX);
            assertThat(f.streaming()).isFalse();
            assertThat(f.estimatedInputTokens()).isPositive();
            assertThat(f.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(f.estimatedInputTokens());
        }
        assertThat(adapter.readRequest(null, ESTIMATOR).providerKind()).isEqualTo("openai");
        assertThat(adapter.readRequest(post("https://api.openai.com/v1/completions", "{\"prompt\":\"abcd\"}"), null)
                        .estimatedInputTokens())
                .isPositive();
    }

    @Test
    void readsRateLimitHeaders() {
        RateLimitSnapshot s = adapter.readRateLimits(
                headers(
                        "x-ratelimit-limit-requests",
                        "10000",
                        "x-ratelimit-limit-tokens",
                        "30000000",
                        "x-ratelimit-remaining-requests",
                        "9999",
                        "x-ratelimit-remaining-tokens",
                        "29999980",
                        "x-ratelimit-reset-requests",
                        "6ms",
                        "x-ratelimit-reset-tokens",
                        "1m2.5s"),
                NOW);
        assertThat(s.budgets()).hasSize(2);
        Budget requests = s.budgets().get(0);
        assertThat(requests.dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(requests.limit()).isEqualTo(10_000);
        assertThat(requests.remaining()).isEqualTo(9_999);
        assertThat(requests.resetAfterMillis()).isEqualTo(6);
        assertThat(requests.windowMillis()).isEqualTo(60_000);
        Budget tokens = s.budgets().get(1);
        assertThat(tokens.dimension()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(tokens.limit()).isEqualTo(30_000_000);
        assertThat(tokens.remaining()).isEqualTo(29_999_980);
        assertThat(tokens.resetAfterMillis()).isEqualTo(62_500);
    }

    @Test
    void rateLimitHeadersAreReadDefensively() {
        RateLimitSnapshot s = adapter.readRateLimits(
                headers(
                        "x-ratelimit-limit-tokens",
                        "-1",
                        "x-ratelimit-remaining-tokens",
                        "12.0",
                        "x-ratelimit-reset-tokens",
                        "soon",
                        "x-ratelimit-remaining-requests",
                        "lots"),
                NOW);
        assertThat(s.budgets()).singleElement().satisfies(b -> {
            assertThat(b.name()).isEqualTo("tokens");
            assertThat(b.limit()).isEqualTo(RateLimitSnapshot.UNKNOWN);
            assertThat(b.remaining()).isEqualTo(12);
            assertThat(b.resetAfterMillis()).isEqualTo(RateLimitSnapshot.UNKNOWN);
        });
        assertThat(adapter.readRateLimits(Headers.empty(), NOW).isEmpty()).isTrue();
        assertThat(adapter.readRateLimits(null, NOW).isEmpty()).isTrue();
        assertThat(adapter.readRateLimits(
                                headers("x-ratelimit-reset-tokens", "1s", "x-ratelimit-limit-requests", "7"), NOW)
                        .budgets()
                        .get(0)
                        .resetAfterMillis())
                .isEqualTo(RateLimitSnapshot.UNKNOWN);
    }

    /** When OpenAI counted the call: its processing time before the answer, whole milliseconds. */
    @Test
    void readsHowLongTheProviderWorkedBeforeAnswering() {
        assertThat(adapter.processingMillis(headers("openai-processing-ms", "1234")))
                .isEqualTo(1234);
        assertThat(adapter.processingMillis(headers("OpenAI-Processing-Ms", "0")))
                .isZero();
        assertThat(adapter.processingMillis(headers("openai-processing-ms", "soon")))
                .isEqualTo(RateLimitSnapshot.UNKNOWN);
        assertThat(adapter.processingMillis(headers("openai-processing-ms", "-5")))
                .isEqualTo(RateLimitSnapshot.UNKNOWN);
        assertThat(adapter.processingMillis(Headers.empty())).isEqualTo(RateLimitSnapshot.UNKNOWN);
        assertThat(adapter.processingMillis(null)).isEqualTo(RateLimitSnapshot.UNKNOWN);
    }

    static String error(String message, String type, String code) {
        return "{\"error\":{\"message\":\"" + message + "\",\"type\":" + (type == null ? "null" : "\"" + type + "\"")
                + ",\"param\":null,\"code\":" + code + "}}";
    }

    static final String TPM_MESSAGE =
            "Rate limit reached for gpt-4o-mini in organization org-x on tokens per min (TPM): "
                    + "Limit 200000, Used 195869, Requested 4412. Please try again in 84ms. Visit https://platform.openai.com/account/rate-limits to learn more.";

    ProviderError classify(int status, String body, String... headerNameValues) {
        return adapter.classifyError(status, headers(headerNameValues), body == null ? null : utf8(body), NOW);
    }

    @Test
    void rateLimitIsCapacityWithTheMessageHint() {
        ProviderError e = classify(429, error(TPM_MESSAGE, "tokens", "\"rate_limit_exceeded\""));
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.limiter()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(e.retryAfterMillis()).isEqualTo(84);
        assertThat(e.code()).isEqualTo("rate_limit_exceeded");
        assertThat(e.type()).isEqualTo("tokens");
        assertThat(e.message()).isEqualTo(TPM_MESSAGE);
    }

    @Test
    void headerHintsWinOverTheMessage() {
        String body = error(TPM_MESSAGE, "tokens", "\"rate_limit_exceeded\"");
        assertThat(classify(429, body, "retry-after-ms", "250", "retry-after", "1")
                        .retryAfterMillis())
                .isEqualTo(250);
        assertThat(classify(429, body, "retry-after", "2").retryAfterMillis()).isEqualTo(2000);
    }

    @Test
    void requestsLimitNamesRequests() {
        ProviderError e = classify(
                429,
                error(
                        "Rate limit reached for gpt-4o in organization org-x on requests per day "
                                + "(RPD): Limit 10000, Used 10000, Requested 1. Please try again in 6m0s.",
                        "requests",
                        "\"rate_limit_exceeded\""));
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.limiter()).isEqualTo(Dimension.REQUESTS);
        assertThat(e.retryAfterMillis()).isEqualTo(360_000);
    }

    @Test
    void requestTooLargeIsNeverRetried() {
        ProviderError e = classify(
                429,
                error(
                        "Request too large for gpt-4o in organization org-x on tokens per min "
                                + "(TPM): Limit 30000, Requested 34307. The input or output tokens must be reduced in order to run "
                                + "successfully.",
                        "tokens",
                        "\"rate_limit_exceeded\""));
        assertThat(e.outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(e.limiter()).isEqualTo(Dimension.TOTAL_TOKENS);
    }

    @Test
    void billingIsPolicy() {
        assertThat(classify(
                                429,
                                error(
                                        "You exceeded your current quota, please check your plan and billing details.",
                                        "insufficient_quota",
                                        "\"insufficient_quota\""))
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        ProviderError spend = classify(
                429,
                error(
                        "Organization spend limit exceeded.",
                        "insufficient_quota",
                        "\"organization_spend_limit_exceeded\""));
        assertThat(spend.outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(spend.limiter()).isEqualTo(Dimension.SPEND);
        assertThat(classify(429, error("Project spend limit.", null, "\"project_spend_limit_exceeded\""))
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
    }

    @Test
    void slowDownIsCapacityAndOverloadIsTransient() {
        assertThat(classify(429, error("Please reduce your rate.", null, "\"slow_down\""))
                        .outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(classify(
                                503,
                                error(
                                        "That model is currently overloaded with other requests.",
                                        "server_error",
                                        "\"server_is_overloaded\""))
                        .outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        for (int status : new int[] {500, 502, 503, 504}) {
            assertThat(classify(status, null).outcome()).as("%d", status).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        }
    }

    @Test
    void clientErrorsAreTheRequestsFaultAndConflictIsPolicy() {
        for (int status : new int[] {400, 401, 403, 404, 413, 422}) {
            assertThat(classify(status, error("bad", "invalid_request_error", "null"))
                            .outcome())
                    .as("%d", status)
                    .isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        }
        assertThat(classify(409, "{}").outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
    }

    @Test
    void xShouldRetryIsAuthoritative() {
        String body = error(TPM_MESSAGE, "tokens", "\"rate_limit_exceeded\"");
        assertThat(classify(429, body, "x-should-retry", "false").outcome().retryable())
                .isFalse();
        assertThat(classify(503, null, "x-should-retry", "false").outcome().retryable())
                .isFalse();
        assertThat(classify(400, null, "x-should-retry", "true").outcome().retryable())
                .isTrue();
        assertThat(classify(429, error("x", null, "\"insufficient_quota\""), "x-should-retry", "true")
                        .outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
    }

    @Test
    void codeMayBeANumber() {
        assertThat(classify(429, error("Too many", null, "429")).code()).isEqualTo("429");
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
            "{\"error\":{\"message\":{\"nested\":true}}}"
        }) {
            assertThat(classify(429, body).outcome()).as(body).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        }
        Random random = new Random(11);
        for (int i = 0; i < 500; i++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            assertThat(adapter.classifyError(429 + i % 100, null, junk, NOW)).isNotNull();
        }
    }

    @Test
    void localRejectionIsOpenAisOwn429WithSluiceInsideError() {
        RequestFacts facts = RequestFacts.builder("openai")
                .model("gpt-4o-mini")
                .apiKeyId("k_3f9a1c")
                .estimatedInputTokens(4200)
                .build();
        Rejection r = Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.OUTPUT_TOKENS)
                .scope("openai/prod/tenant=search")
                .tenant("search")
                .trafficClass("interactive")
                .retryAfterMillis(2400)
                .estimatedOutputTokens(800)
                .detail("needs 4200, 1900 free, refills in 2.4 s")
                .build();
        LocalAnswer a = adapter.localRejection(r, facts);
        assertThat(a.status()).isEqualTo(429);
        assertThat(a.headers())
                .containsEntry("x-should-retry", List.of("false"))
                .containsEntry("retry-after", List.of("3"))
                .containsEntry("retry-after-ms", List.of("2400"))
                .containsEntry("x-sluice-decision", List.of("rejected_locally"));
        Map<String, String> f = JsonFields.pick(
                a.body(),
                "error.message",
                "error.type",
                "error.code",
                "error.sluice.gateway_decision",
                "error.sluice.limiter",
                "error.sluice.provider",
                "error.sluice.api_key_id",
                "error.sluice.estimated_input_tokens");
        assertThat(f)
                .containsEntry("error.type", "tokens")
                .containsEntry("error.code", "rate_limit_exceeded")
                .containsEntry("error.sluice.gateway_decision", "rejected_locally")
                .containsEntry("error.sluice.limiter", "output_tokens")
                .containsEntry("error.sluice.provider", "openai")
                .containsEntry("error.sluice.api_key_id", "k_3f9a1c")
                .containsEntry("error.sluice.estimated_input_tokens", "4200");
        assertThat(f.get("error.message"))
                .isEqualTo(
                        "Rate limit reached in Sluice for gpt-4o-mini on output_tokens "
                                + "(scope openai/prod/tenant=search): needs 4200, 1900 free, refills in 2.4 s. Please try again in 2.4s.");
        assertThat(new String(a.body(), StandardCharsets.UTF_8))
                .contains("\"param\":null")
                .doesNotContain("sk-");
        // Our own message hint parses back to the wait we announced.
        assertThat(dev.sluice.core.retry.WaitHints.fromMessage(f.get("error.message"), NOW))
                .isEqualTo(2400);
    }

    @Test
    void notAdmissibleDoesNotInviteARetry() {
        Rejection r = Rejection.builder(GatewayDecision.NOT_ADMISSIBLE)
                .limiter(Dimension.TOTAL_TOKENS)
                .retryAfterMillis(60_000)
                .build();
        String message = JsonFields.pick(adapter.localRejection(r, null).body(), "error.message")
                .get("error.message");
        assertThat(message).startsWith("Request too large").doesNotContain("try again");
    }

    @Test
    void waitsAreWrittenAsGoDurations() {
        assertThat(OpenAiLocalRejection.goDuration(84)).isEqualTo("84ms");
        assertThat(OpenAiLocalRejection.goDuration(2400)).isEqualTo("2.4s");
        assertThat(OpenAiLocalRejection.goDuration(62_500)).isEqualTo("1m2.5s");
        assertThat(OpenAiLocalRejection.goDuration(360_000)).isEqualTo("6m0s");
        assertThat(OpenAiLocalRejection.goDuration(3_723_001)).isEqualTo("1h2m3.001s");
        for (long ms : new long[] {1, 999, 1000, 1001, 59_999, 60_000, 3_600_000, 86_400_000}) {
            assertThat(dev.sluice.core.retry.WaitHints.goDuration(OpenAiLocalRejection.goDuration(ms)))
                    .isEqualTo(ms);
        }
    }

    @Test
    void namesTheOrganizationEveryAnswerWasCountedAgainst() {
        assertThat(adapter.organization(dev.sluice.core.provider.Headers.of(
                        java.util.Map.of("openai-organization", java.util.List.of(" org-abc123 ")))))
                .isEqualTo("org-abc123");
        assertThat(adapter.organization(dev.sluice.core.provider.Headers.empty()))
                .isNull();
        // a garbled header must not make a scope per garbage value
        assertThat(adapter.organization(dev.sluice.core.provider.Headers.of(
                        java.util.Map.of("openai-organization", java.util.List.of("<html> {\"x\": 1}")))))
                .isNull();
    }
}
