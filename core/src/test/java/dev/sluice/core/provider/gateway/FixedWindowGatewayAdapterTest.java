package dev.sluice.core.provider.gateway;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.headers;
import static dev.sluice.core.provider.ProviderFixtures.post;
import static dev.sluice.core.provider.ProviderFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.AdapterSettings;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.LoopbackServer;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.json.JsonFields;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FixedWindowGatewayAdapterTest {

    static final long NOW = Instant.parse("2026-11-29T10:14:37.250Z").toEpochMilli();
    final FixedWindowGatewayAdapter adapter = new FixedWindowGatewayAdapter(
            AdapterSettings.builder().wallClockMillis(() -> NOW).build());

    static String error(String type, String code, String message) {
        return "{\"error\":{\"type\":\"" + type + "\",\"code\":\"" + code + "\",\"message\":\"" + message + "\"}}";
    }

    ProviderError classify(int status, String body, String... headerNameValues) {
        return adapter.classifyError(status, headers(headerNameValues), body == null ? null : utf8(body), NOW);
    }

    @Test
    void isSelectedByConfigOnlyAndChargesCallsNotTokens() {
        assertThat(adapter.kind()).isEqualTo("fixed-window-gateway");
        assertThat(adapter.recognises("llm.example.com", "/v1/chat/completions"))
                .isFalse();
        RequestFacts f = adapter.readRequest(
                post(
                        "https://llm.example.com/api/v1/chat/completions",
                        "{\"model\":\"mistral-small\",\"max_tokens\":200,\"stream\":true,\"stream_options\":"
                                + "{\"include_usage\":true},\"messages\":[{\"role\":\"user\",\"content\":\"abcd\"}]}",
                        "Authorization",
                        "Bearer key-1"),
                ESTIMATOR);
        assertThat(f.providerKind()).isEqualTo("fixed-window-gateway");
        assertThat(f.operation()).isEqualTo("chat.completions");
        assertThat(f.model()).isEqualTo("mistral-small");
        assertThat(f.streaming()).isTrue();
        assertThat(f.streamUsageRequested()).isTrue();
        assertThat(f.maxOutputTokens()).isEqualTo(200);
        assertThat(f.apiKeyId()).isNotNull();
        assertThat(f.providerCharge(Dimension.REQUESTS)).isEqualTo(1);
        assertThat(f.providerCharge(Dimension.CONCURRENCY)).isEqualTo(1);
        assertThat(f.providerCharge(Dimension.TOTAL_TOKENS))
                .as("the gateway does not count tokens")
                .isEqualTo(-1);
        assertThat(adapter.readRateLimits(headers("x-ratelimit-remaining-requests", "5"), NOW)
                        .isEmpty())
                .isTrue();
        assertThat(adapter.readRequest(null, ESTIMATOR).providerKind()).isEqualTo("fixed-window-gateway");
    }

    @Test
    void aKeyBucket429WaitsUntilTheInstantItNames() {
        ProviderError e = classify(
                429,
                error(
                        "rate_limit_error",
                        "rate_limit_exceeded",
                        "Rate limit exceeded for bucket key_chat (600 per minute). Retry after 2026-11-29T10:15:00Z"));
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.retryAfterMillis()).isEqualTo(22_750);
        assertThat(e.limiter()).isEqualTo(Dimension.REQUESTS);
        assertThat(e.type()).isEqualTo("rate_limit_error");
        assertThat(e.code()).isEqualTo("rate_limit_exceeded");
        assertThat(classify(429, error("rate_limit_error", "rate_limit_exceeded", "Retry after 2026-11-29T10:14:00Z"))
                        .retryAfterMillis())
                .as("a window already over")
                .isZero();
    }

    @Test
    void theOrganizationBucketNamesNoTimeSoOnlyBackoffIsHonest() {
        ProviderError e = classify(
                429,
                error(
                        "rate_limit_error",
                        "rate_limit_exceeded",
                        "Rate limit exceeded for bucket org_chat (1800 per minute)."));
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.hasWaitHint()).isFalse();
        assertThat(e.limiter()).isEqualTo(Dimension.REQUESTS);
    }

    @Test
    void aConcurrencyRefusalIsCapacityRetriedAfterABackoffNotAPause() {
        for (String message : new String[] {
            "Too many concurrent requests for this API key (limit 8).",
            "Concurrency limit reached: 8 requests in flight for this key",
            "Rate limit exceeded: 8 requests already in-flight"
        }) {
            ProviderError e = classify(429, error("rate_limit_error", "rate_limit_exceeded", message));
            assertThat(e.outcome()).as(message).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
            assertThat(e.limiter()).as(message).isEqualTo(Dimension.CONCURRENCY);
            assertThat(e.hasWaitHint())
                    .as("no hint: no pause of the whole scope")
                    .isFalse();
        }
        assertThat(classify(429, error("rate_limit_error", "concurrency_limit_exceeded", "Slow down."))
                        .limiter())
                .isEqualTo(Dimension.CONCURRENCY);
    }

    @Test
    void spendCapAndResidencyFilterAreNeverRetriedAndOversizedBodiesAreTheRequestsFault() {
        ProviderError budget =
                classify(402, error("budget_error", "budget_exceeded", "Daily spend cap of the organization reached."));
        assertThat(budget.outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(budget.limiter()).isEqualTo(Dimension.SPEND);
        assertThat(classify(
                                409,
                                error(
                                        "policy_error",
                                        "no_endpoint_for_policy",
                                        "No endpoint satisfies the data residency policy of this request."))
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(classify(413, "{\"error\":{\"message\":\"Request body exceeds 1 MB\"}}")
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(classify(413, null).outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(classify(503, null).outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(401, "{}").outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
    }

    @Test
    void aHeaderAddedByAProxyAndXShouldRetryAreHonoured() {
        String org = error("rate_limit_error", "rate_limit_exceeded", "Rate limit exceeded for bucket org_chat.");
        assertThat(classify(429, org, "retry-after", "2").retryAfterMillis()).isEqualTo(2000);
        assertThat(classify(429, org, "x-should-retry", "false").outcome().retryable())
                .isFalse();
    }

    @Test
    void garbageNeverThrows() {
        for (String body :
                new String[] {null, "", "[]", "{\"error\":\"text\"}", "<html>", "{\"error\":{\"code\":402}}"}) {
            assertThat(classify(429, body).outcome()).as(body).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        }
        Random random = new Random(31);
        for (int i = 0; i < 300; i++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            assertThat(adapter.classifyError(400 + i % 200, null, junk, NOW)).isNotNull();
        }
    }

    @Test
    void localRejectionIsTheGatewaysShapeEndingWithTheInstantToComeBackAt() {
        Rejection r = Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.REQUESTS)
                .scope("gateway/prod/api_key=k_1")
                .retryAfterMillis(22_750)
                .build();
        LocalAnswer a = adapter.localRejection(
                r, RequestFacts.builder("fixed-window-gateway").model("m").build());
        assertThat(a.status()).isEqualTo(429);
        assertThat(a.headers())
                .containsEntry("x-should-retry", List.of("false"))
                .containsEntry("retry-after", List.of("23"));
        Map<String, String> f = JsonFields.pick(
                a.body(),
                "error.type",
                "error.code",
                "error.message",
                "error.sluice.gateway_decision",
                "error.sluice.provider");
        assertThat(f)
                .containsEntry("error.type", "rate_limit_error")
                .containsEntry("error.code", "rate_limit_exceeded")
                .containsEntry("error.sluice.gateway_decision", "rejected_locally")
                .containsEntry("error.sluice.provider", "fixed-window-gateway");
        assertThat(f.get("error.message")).endsWith(" Retry after 2026-11-29T10:15:00Z");
        assertThat(adapter.classifyError(429, headers(), a.body(), NOW).retryAfterMillis())
                .isEqualTo(22_750);
        assertThat(WaitHints.fromMessage(f.get("error.message"), NOW)).isEqualTo(22_750);

        String noTime = JsonFields.pick(
                        adapter.localRejection(
                                        Rejection.builder(GatewayDecision.QUEUE_FULL)
                                                .build(),
                                        null)
                                .body(),
                        "error.message")
                .get("error.message");
        assertThat(noTime).doesNotContain("Retry after");
        assertThat(GatewayLocalRejection.message(
                        Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                                .retryAfterMillis(1)
                                .build(),
                        null,
                        NOW))
                .as("rounded up to the second")
                .endsWith("10:14:38Z");
    }

    @SuppressWarnings("unchecked")
    @Test
    void openAiJavaRaisesRateLimitExceptionOnceWithSluiceReadable() throws Exception {
        Rejection r = Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.CONCURRENCY)
                .retryAfterMillis(500)
                .build();
        LocalAnswer answer = adapter.localRejection(
                r, RequestFacts.builder("fixed-window-gateway").model("m").build());
        try (LoopbackServer server = new LoopbackServer(answer)) {
            OpenAIClient client = OpenAIOkHttpClient.builder()
                    .apiKey("key-1")
                    .baseUrl(server.origin() + "/api/v1")
                    .build();
            RateLimitException e = catchThrowableOfType(
                    RateLimitException.class,
                    () -> client.chat()
                            .completions()
                            .create(ChatCompletionCreateParams.builder()
                                    .model("m")
                                    .addUserMessage("Hi")
                                    .build()));
            client.close();
            assertThat(server.hits).hasValue(1);
            assertThat(e.type()).contains("rate_limit_error");
            Optional<Map<String, JsonValue>> error = e.body().asObject();
            Optional<Map<String, JsonValue>> sluice =
                    error.orElseThrow().get("sluice").asObject();
            assertThat(sluice.orElseThrow().get("limiter").asString()).contains("concurrency");
        }
    }
}
