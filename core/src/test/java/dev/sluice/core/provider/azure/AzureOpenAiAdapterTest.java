package dev.sluice.core.provider.azure;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.feed;
import static dev.sluice.core.provider.ProviderFixtures.headers;
import static dev.sluice.core.provider.ProviderFixtures.post;
import static dev.sluice.core.provider.ProviderFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.json.JsonFields;
import dev.sluice.core.provider.wire.ApiKeyIds;
import dev.sluice.core.retry.OutcomeClass;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AzureOpenAiAdapterTest {

    static final long NOW = 1_790_000_000_000L;
    static final String AZURE_429 = "{\"error\":{\"code\":\"429\",\"message\":\"Requests to the ChatCompletions_Create "
            + "Operation under Azure OpenAI API version 2024-10-01-preview have exceeded token rate limit of your current "
            + "AIServices S0 pricing tier. Please retry after 37 seconds. Please contact Azure support service if you "
            + "would like to further increase the default rate limit.\"}}";

    final AzureOpenAiAdapter adapter = new AzureOpenAiAdapter(() -> NOW);

    @Test
    void recognisesAzureHostsAndRoutes() {
        assertThat(adapter.kind()).isEqualTo("azure-openai");
        for (String host : new String[] {
            "myres.openai.azure.com", "MyRes.cognitiveservices.azure.com:443", "proj.services.ai.azure.com"
        }) {
            assertThat(adapter.recognises(host, "/openai/deployments/gpt4o-prod/chat/completions"))
                    .as(host)
                    .isTrue();
        }
        for (String path : new String[] {
            "/openai/deployments/d/completions",
            "/openai/deployments/d/embeddings",
            "/openai/v1/chat/completions",
            "/openai/v1/responses",
            "/openai/v1/embeddings",
            "/openai/responses"
        }) {
            assertThat(adapter.recognises("myres.openai.azure.com", path))
                    .as(path)
                    .isTrue();
        }
        assertThat(adapter.recognises("openai.azure.com", "/openai/v1/responses"))
                .isFalse();
        assertThat(adapter.recognises("api.openai.com", "/v1/chat/completions")).isFalse();
        assertThat(adapter.recognises("myres.openai.azure.com", "/openai/deployments//chat/completions"))
                .isFalse();
        assertThat(adapter.recognises("myres.openai.azure.com", "/openai/deployments/d/files"))
                .isFalse();
        assertThat(adapter.recognises("myres.openai.azure.com", "/openai/models"))
                .isFalse();
        assertThat(adapter.recognises(null, null)).isFalse();
    }

    @Test
    void readsADeploymentRequest() {
        RequestFacts f = adapter.readRequest(
                post(
                        "https://myres.openai.azure.com/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21",
                        "{\"messages\":[{\"role\":\"user\",\"content\":\"abcdefgh\"}],\"max_tokens\":300,\"stream\":true}",
                        "api-key",
                        "azure-key"),
                ESTIMATOR);
        long input = ESTIMATOR.estimateInputTokens("gpt4o-prod", 8, 1);
        assertThat(f.providerKind()).isEqualTo("azure-openai");
        assertThat(f.operation()).isEqualTo("chat.completions");
        assertThat(f.deployment()).isEqualTo("gpt4o-prod");
        assertThat(f.model()).as("the deployment stands in for an absent model").isEqualTo("gpt4o-prod");
        assertThat(f.streaming()).isTrue();
        assertThat(f.streamUsageRequested()).isFalse();
        assertThat(f.estimatedInputTokens()).isEqualTo(input);
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("azure-key"));
        assertThat(f.providerScope())
                .containsExactly(Map.entry("resource", "myres"), Map.entry("deployment", "gpt4o-prod"));
        assertThat(f.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(input + 300);
        assertThat(f.providerCharge(Dimension.REQUESTS)).isEqualTo(1);
    }

    @Test
    void withoutMaxTokensTheAssumedModelMaximumIsCharged() {
        RequestFacts f = adapter.readRequest(
                post(
                        "https://myres.openai.azure.com/openai/deployments/d/chat/completions",
                        "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"abcd\"}]}"),
                ESTIMATOR);
        assertThat(f.model()).isEqualTo("gpt-4o");
        assertThat(f.deployment()).isEqualTo("d");
        assertThat(f.maxOutputTokens()).isEqualTo(RequestFacts.NO_MAX);
        assertThat(f.providerCharge(Dimension.TOTAL_TOKENS))
                .isEqualTo(f.estimatedInputTokens() + AzureOpenAiAdapter.ASSUMED_MAX_OUTPUT_TOKENS);
        RequestFacts embeddings = adapter.readRequest(
                post("https://myres.openai.azure.com/openai/deployments/emb/embeddings", "{\"input\":\"abcd\"}"),
                ESTIMATOR);
        assertThat(embeddings.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(embeddings.estimatedInputTokens());
    }

    @Test
    void v1RoutesNameTheDeploymentInTheBodyAndEntraTokensAreHashedToo() {
        RequestFacts f = adapter.readRequest(
                post(
                        "https://myres.openai.azure.com/openai/v1/responses",
                        "{\"model\":\"my-gpt41\",\"input\":\"hi\",\"max_output_tokens\":20}",
                        "Authorization",
                        "Bearer eyJ.token"),
                ESTIMATOR);
        assertThat(f.operation()).isEqualTo("responses");
        assertThat(f.deployment()).isEqualTo("my-gpt41");
        assertThat(f.model()).isEqualTo("my-gpt41");
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("eyJ.token"));
        assertThat(f.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(f.estimatedInputTokens() + 20);
        assertThat(adapter.readRequest(post("https://myres.openai.azure.com/openai/v1/responses", "garbage"), ESTIMATOR)
                        .providerCharge(Dimension.TOTAL_TOKENS))
                .isPositive();
        assertThat(adapter.readRequest(null, ESTIMATOR).providerKind()).isEqualTo("azure-openai");
    }

    @Test
    void remainingRequestsTrackATenSecondWindowAndMinusOneIsUnknown() {
        RateLimitSnapshot s = adapter.readRateLimits(
                headers("x-ratelimit-remaining-requests", "99", "x-ratelimit-remaining-tokens", "119000"), NOW);
        assertThat(s.budgets()).hasSize(2);
        assertThat(s.budgets().get(0).dimension()).isEqualTo(Dimension.REQUESTS);
        assertThat(s.budgets().get(0).remaining()).isEqualTo(99);
        assertThat(s.budgets().get(0).windowMillis()).isEqualTo(10_000);
        assertThat(s.budgets().get(0).limit()).isEqualTo(RateLimitSnapshot.UNKNOWN);
        assertThat(s.budgets().get(1).dimension()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(s.budgets().get(1).remaining()).isEqualTo(119_000);
        assertThat(s.budgets().get(1).windowMillis()).isEqualTo(60_000);
        assertThat(adapter.readRateLimits(
                                headers("x-ratelimit-remaining-requests", "-1", "x-ratelimit-remaining-tokens", "-1"),
                                NOW)
                        .isEmpty())
                .isTrue();
    }

    ProviderError classify(int status, String body, String... headerNameValues) {
        return adapter.classifyError(status, headers(headerNameValues), body == null ? null : utf8(body), NOW);
    }

    @Test
    void tokenRateLimitIsCapacityWithItsWaitInWords() {
        ProviderError e = classify(429, AZURE_429);
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.retryAfterMillis()).isEqualTo(37_000);
        assertThat(e.code()).isEqualTo("429");
        assertThat(e.limiter()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(classify(429, AZURE_429, "retry-after-ms", "36500", "retry-after", "37")
                        .retryAfterMillis())
                .isEqualTo(36_500);
        assertThat(classify(429, AZURE_429.replace("token rate limit", "call rate limit"))
                        .limiter())
                .isEqualTo(Dimension.REQUESTS);
        assertThat(classify(429, "{\"error\":{\"code\":429,\"message\":\"Rate limit is exceeded.\"}}")
                        .code())
                .isEqualTo("429");
    }

    @Test
    void dayLongQuotaWaitsArePolicy() {
        assertThat(classify(429, AZURE_429.replace("37 seconds", "86400 seconds"))
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(classify(429, AZURE_429, "retry-after", "86400").outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(classify(
                                429,
                                "{\"error\":{\"code\":\"429\",\"message\":\"You have exceeded your daily token quota.\"}}")
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
    }

    @Test
    void statusesAndXShouldRetryAsEverywhere() {
        assertThat(classify(500, null).outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(503, null).outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(400, "{\"error\":{\"code\":\"content_filter\",\"message\":\"filtered\"}}")
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(classify(429, AZURE_429, "x-should-retry", "false").outcome().retryable())
                .isFalse();
        Random random = new Random(9);
        for (int i = 0; i < 300; i++) {
            byte[] junk = new byte[random.nextInt(200)];
            random.nextBytes(junk);
            assertThat(adapter.classifyError(400 + i % 200, null, junk, NOW)).isNotNull();
        }
    }

    @Test
    void localRejectionIsAzuresOwn429WithSluiceInsideError() {
        Rejection r = Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.TOTAL_TOKENS)
                .retryAfterMillis(2100)
                .build();
        RequestFacts facts = RequestFacts.builder("azure-openai")
                .model("gpt-4o")
                .deployment("d")
                .build();
        LocalAnswer a = adapter.localRejection(r, facts);
        assertThat(a.status()).isEqualTo(429);
        assertThat(a.headers())
                .containsEntry("x-should-retry", List.of("false"))
                .containsEntry("retry-after", List.of("3"));
        Map<String, String> f = JsonFields.pick(
                a.body(), "error.code", "error.message", "error.sluice.provider", "error.sluice.gateway_decision");
        assertThat(f)
                .containsEntry("error.code", "429")
                .containsEntry("error.sluice.provider", "azure-openai")
                .containsEntry("error.sluice.gateway_decision", "rejected_locally");
        assertThat(f.get("error.message")).endsWith("Please retry after 3 seconds.");
        assertThat(dev.sluice.core.retry.WaitHints.fromMessage(f.get("error.message"), NOW))
                .isEqualTo(3000);
    }

    @Test
    void usageIsReadAsOpenAiFormats() {
        RequestFacts facts =
                RequestFacts.builder("azure-openai").streaming(true).build();
        String sse = "data: {\"choices\":[],\"prompt_filter_results\":[{\"prompt_index\":0}]}\n\n"
                + "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1,\"total_tokens\":10}}\n\n"
                + "data: [DONE]\n\n";
        var usage = feed(adapter.usageParser(facts, headers("content-type", "text/event-stream"), ESTIMATOR), utf8(sse))
                .usage();
        assertThat(usage.inputTokens()).isEqualTo(9);
        assertThat(usage.outputTokens()).isEqualTo(1);
    }
}
