package dev.sluice.core.provider.compatible;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.headers;
import static dev.sluice.core.provider.ProviderFixtures.post;
import static dev.sluice.core.provider.ProviderFixtures.resource;
import static dev.sluice.core.provider.ProviderFixtures.sameUsageAtEveryCut;
import static dev.sluice.core.provider.ProviderFixtures.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.AdapterSettings;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RateLimitSnapshot.Budget;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.json.JsonFields;
import dev.sluice.core.provider.openai.OpenAiOperation;
import dev.sluice.core.provider.wire.ApiKeyIds;
import dev.sluice.core.retry.OutcomeClass;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OpenAiCompatibleAdapterTest {

    static final long NOW = 1_790_000_000_000L;
    final OpenAiCompatibleAdapter adapter = new OpenAiCompatibleAdapter(
            AdapterSettings.builder().wallClockMillis(() -> NOW).build());
    final OpenAiCompatibleAdapter groq = new OpenAiCompatibleAdapter(AdapterSettings.builder()
            .wallClockMillis(() -> NOW)
            .requestsWindow(Duration.ofDays(1))
            .build());

    @Test
    void isNeverRecognisedByHostAlone() {
        assertThat(adapter.kind()).isEqualTo("openai-compatible");
        assertThat(adapter.recognises("api.groq.com", "/openai/v1/chat/completions"))
                .isFalse();
        assertThat(adapter.recognises("localhost", "/v1/chat/completions")).isFalse();
    }

    @Test
    void findsTheOperationByItsPathTailUnderAnyPrefix() {
        assertThat(OpenAiOperation.endingIn("/v1/chat/completions")).isEqualTo(OpenAiOperation.CHAT_COMPLETIONS);
        assertThat(OpenAiOperation.endingIn("/openai/v1/chat/completions/"))
                .isEqualTo(OpenAiOperation.CHAT_COMPLETIONS);
        assertThat(OpenAiOperation.endingIn("/api/llm/v1/completions")).isEqualTo(OpenAiOperation.COMPLETIONS);
        assertThat(OpenAiOperation.endingIn("/v1/embeddings")).isEqualTo(OpenAiOperation.EMBEDDINGS);
        assertThat(OpenAiOperation.endingIn("/gateway/responses")).isEqualTo(OpenAiOperation.RESPONSES);
        for (String path : new String[] {
            "/v1/models",
            "/v1/mycompletions",
            "/chat/completions/extra",
            "/v1/responses/resp_123",
            "completions",
            "",
            "/",
            null
        }) {
            assertThat(OpenAiOperation.endingIn(path)).as(path).isNull();
        }
    }

    @Test
    void readsAnOpenAiFormatRequestAndChargesPromptPlusMaxTokens() {
        RequestFacts f = adapter.readRequest(
                post(
                        "https://api.groq.com/openai/v1/chat/completions",
                        "{\"model\":\"llama-3.3-70b-versatile\",\"max_completion_tokens\":300,\"stream\":true,"
                                + "\"messages\":[{\"role\":\"user\",\"content\":\"Explain fast inference\"}]}",
                        "Authorization",
                        "Bearer gsk_test"),
                ESTIMATOR);
        assertThat(f.providerKind()).isEqualTo("openai-compatible");
        assertThat(f.operation()).isEqualTo("chat.completions");
        assertThat(f.model()).isEqualTo("llama-3.3-70b-versatile");
        assertThat(f.streaming()).isTrue();
        assertThat(f.maxOutputTokens()).isEqualTo(300);
        assertThat(f.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens(null, 22, 1));
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("gsk_test"));
        assertThat(f.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(f.estimatedInputTokens() + 300);
        assertThat(f.providerCharge(Dimension.REQUESTS)).isEqualTo(1);

        RequestFacts embeddings = adapter.readRequest(
                post(
                        "http://vllm.internal:8000/v1/embeddings",
                        "{\"model\":\"bge\",\"input\":\"abcd\",\"max_tokens\":99}",
                        "x-api-key",
                        "k1"),
                ESTIMATOR);
        assertThat(embeddings.providerCharge(Dimension.TOTAL_TOKENS)).isEqualTo(embeddings.estimatedInputTokens());
        assertThat(embeddings.apiKeyId()).isEqualTo(ApiKeyIds.of("k1"));
        assertThat(adapter.readRequest(post("http://gw/v1/chat/completions", "{}", "api-key", "k2"), ESTIMATOR)
                        .apiKeyId())
                .isEqualTo(ApiKeyIds.of("k2"));
        assertThat(adapter.readRequest(post("http://gw/v1/models", null), ESTIMATOR)
                        .operation())
                .isEqualTo("unknown");
        assertThat(adapter.readRequest(null, ESTIMATOR).providerKind()).isEqualTo("openai-compatible");
    }

    @Test
    void tokensAreTruedUpUnlessConfiguredNotTo() {
        assertThat(adapter.truesUp(Dimension.TOTAL_TOKENS)).isTrue();
        assertThat(adapter.truesUp(Dimension.REQUESTS)).isFalse();
        OpenAiCompatibleAdapter keeps = new OpenAiCompatibleAdapter(
                AdapterSettings.builder().truesUpTokens(false).build());
        assertThat(keeps.truesUp(Dimension.TOTAL_TOKENS)).isFalse();
    }

    @Test
    void groqsRequestBudgetIsPerDayWhenConfiguredSo() {
        Headers h = headers(
                "x-ratelimit-limit-requests",
                "14400",
                "x-ratelimit-limit-tokens",
                "6000",
                "x-ratelimit-remaining-requests",
                "14370",
                "x-ratelimit-remaining-tokens",
                "5997",
                "x-ratelimit-reset-requests",
                "2m59.56s",
                "x-ratelimit-reset-tokens",
                "7.66s");
        RateLimitSnapshot daily = groq.readRateLimits(h, NOW);
        assertThat(daily.budgets()).extracting(Budget::name).containsExactly("requests", "tokens");
        assertThat(daily.budgets().get(0).windowMillis()).isEqualTo(86_400_000);
        assertThat(daily.budgets().get(0).resetAfterMillis()).isEqualTo(179_560);
        assertThat(daily.budgets().get(1).windowMillis()).isEqualTo(60_000);
        assertThat(daily.budgets().get(1).resetAfterMillis()).isEqualTo(7_660);
        assertThat(adapter.readRateLimits(h, NOW).budgets().get(0).windowMillis())
                .as("the default")
                .isEqualTo(60_000);
    }

    @Test
    void readsMistralsBudgetsBySize() {
        RateLimitSnapshot s = adapter.readRateLimits(
                headers(
                        "ratelimitbysize-limit",
                        "500000",
                        "ratelimitbysize-remaining",
                        "468000",
                        "ratelimitbysize-reset",
                        "23",
                        "ratelimitbysize-query-cost",
                        "32000",
                        "x-ratelimitbysize-limit-minute",
                        "500000",
                        "x-ratelimitbysize-remaining-minute",
                        "468000",
                        "x-ratelimitbysize-limit-month",
                        "1000000000",
                        "x-ratelimitbysize-remaining-month",
                        "999968000"),
                NOW);
        assertThat(s.budgets()).hasSize(2);
        Budget minute = s.budgets().get(0);
        assertThat(minute.name()).isEqualTo("tokens-minute");
        assertThat(minute.dimension()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(minute.limit()).isEqualTo(500_000);
        assertThat(minute.remaining()).isEqualTo(468_000);
        assertThat(minute.resetAfterMillis()).isEqualTo(23_000);
        assertThat(minute.windowMillis()).isEqualTo(60_000);
        Budget month = s.budgets().get(1);
        assertThat(month.name()).isEqualTo("tokens-month");
        assertThat(month.limit()).isEqualTo(1_000_000_000);
        assertThat(month.remaining()).isEqualTo(999_968_000);
        assertThat(month.windowMillis()).isEqualTo(30L * 86_400_000);

        RateLimitSnapshot plain = adapter.readRateLimits(
                headers(
                        "ratelimitbysize-limit",
                        "2000000",
                        "ratelimitbysize-remaining",
                        "1999000",
                        "ratelimitbysize-reset",
                        "soon"),
                NOW);
        assertThat(plain.budgets()).singleElement().satisfies(b -> {
            assertThat(b.limit()).isEqualTo(2_000_000);
            assertThat(b.resetAfterMillis()).isEqualTo(RateLimitSnapshot.UNKNOWN);
        });
        assertThat(adapter.readRateLimits(Headers.empty(), NOW).isEmpty()).isTrue();
        assertThat(adapter.readRateLimits(null, NOW).isEmpty()).isTrue();
    }

    ProviderError classify(int status, String body, String... headerNameValues) {
        return adapter.classifyError(status, headers(headerNameValues), body == null ? null : utf8(body), NOW);
    }

    @Test
    void groqsRateLimitIsCapacityWithTheMessageHint() {
        ProviderError e = classify(
                429,
                "{\"error\":{\"message\":\"Rate limit reached for model `llama-3.3-70b-"
                        + "versatile` in organization `org_01j` service tier `on_demand` on tokens per minute (TPM): Limit "
                        + "6000, Used 5200, Requested 1200. Please try again in 5.289s. Need more tokens? Upgrade to Dev Tier "
                        + "today at https://console.groq.com/settings/billing\",\"type\":\"tokens\","
                        + "\"code\":\"rate_limit_exceeded\"}}");
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.retryAfterMillis()).isEqualTo(5289);
        assertThat(e.limiter()).isEqualTo(Dimension.TOTAL_TOKENS);
        assertThat(classify(429, "{\"error\":{\"message\":\"x\",\"code\":\"rate_limit_exceeded\"}}", "retry-after", "3")
                        .retryAfterMillis())
                .isEqualTo(3000);
    }

    @Test
    void mistralsTopLevelErrorIsReadToo() {
        ProviderError e = classify(
                429,
                "{\"object\":\"error\",\"message\":\"Requests rate limit exceeded\","
                        + "\"type\":\"rate_limited\",\"param\":null,\"code\":\"1300\"}",
                "retry-after",
                "1");
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.retryAfterMillis()).isEqualTo(1000);
        assertThat(e.message()).isEqualTo("Requests rate limit exceeded");
        assertThat(e.type()).isEqualTo("rate_limited");
        assertThat(e.code()).isEqualTo("1300");
        ProviderError vllm = classify(
                400,
                "{\"object\":\"error\",\"message\":\"This model's maximum context length "
                        + "is 8192 tokens.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}");
        assertThat(vllm.outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(vllm.code()).isEqualTo("400");
        assertThat(classify(503, "{\"detail\":\"Service Unavailable\"}").message())
                .isEqualTo("Service Unavailable");
        assertThat(classify(429, "{\"error\":\"Too many requests\"}").message()).isEqualTo("Too many requests");
    }

    @Test
    void openAisRulesApply() {
        assertThat(classify(429, "{\"error\":{\"message\":\"quota\",\"type\":\"insufficient_quota\"}}")
                        .outcome())
                .isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(classify(503, null).outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(500, "<html>oops</html>").outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(404, "{}").outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
        assertThat(classify(429, "{}", "x-should-retry", "false").outcome().retryable())
                .isFalse();
        Random random = new Random(29);
        for (int i = 0; i < 300; i++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            assertThat(adapter.classifyError(400 + i % 200, null, junk, NOW)).isNotNull();
        }
    }

    @Test
    void groqsStreamUsageInXGroqIsRead() {
        RequestFacts facts = RequestFacts.builder("openai-compatible")
                .operation("chat.completions")
                .streaming(true)
                .estimatedInputTokens(30)
                .build();
        Usage u = sameUsageAtEveryCut(
                () -> adapter.usageParser(facts, headers("content-type", "text/event-stream"), ESTIMATOR),
                resource("/compatible/groq-stream.sse"));
        assertThat(u.reportedByProvider()).isTrue();
        assertThat(u.inputTokens()).isEqualTo(40);
        assertThat(u.outputTokens()).isEqualTo(9);
    }

    @Test
    void localRejectionIsOpenAisShapeNamingThisKind() {
        RequestFacts facts = RequestFacts.builder("openai-compatible")
                .model("llama-3.3-70b-versatile")
                .build();
        LocalAnswer a = adapter.localRejection(
                Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                        .limiter(Dimension.REQUESTS)
                        .retryAfterMillis(1500)
                        .build(),
                facts);
        assertThat(a.status()).isEqualTo(429);
        assertThat(a.headers()).containsEntry("x-should-retry", List.of("false"));
        assertThat(JsonFields.pick(a.body(), "error.code", "error.type", "error.sluice.provider", "error.message"))
                .containsEntry("error.code", "rate_limit_exceeded")
                .containsEntry("error.type", "requests")
                .containsEntry("error.sluice.provider", "openai-compatible")
                .hasEntrySatisfying("error.message", m -> assertThat(m).endsWith("Please try again in 1.5s."));
    }
}
