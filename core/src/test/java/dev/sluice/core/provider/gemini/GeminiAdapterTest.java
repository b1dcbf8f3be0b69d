package dev.sluice.core.provider.gemini;

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

class GeminiAdapterTest {

    static final long NOW = Instant.parse("2026-11-29T10:14:30Z").toEpochMilli();
    static final String GEMINI = "https://generativelanguage.googleapis.com";
    static final String VERTEX = "https://us-central1-aiplatform.googleapis.com";
    final GeminiAdapter gemini = new GeminiAdapter(() -> NOW);
    final VertexAiAdapter vertex = new VertexAiAdapter(() -> NOW);

    @Test
    void geminiRecognisesGenerationOnItsHostInAnyApiVersion() {
        assertThat(gemini.kind()).isEqualTo("gemini");
        for (String path : new String[] {
            "/v1beta/models/gemini-2.5-flash:generateContent",
            "/v1/models/gemini-2.5-flash:streamGenerateContent",
            "/v1alpha/models/gemini-2.5-pro:generateContent",
            "/v1beta/tunedModels/my-model-42:generateContent",
            "/v1beta/models/gemini-2.5-flash%3AgenerateContent"
        }) {
            assertThat(gemini.recognises("generativelanguage.googleapis.com", path))
                    .as(path)
                    .isTrue();
        }
        assertThat(gemini.recognises(
                        "generativelanguage.googleapis.com:443", "/v1beta/models/gemini-2.5-flash:generateContent"))
                .isTrue();
        for (String path : new String[] {
            "/v1beta/models/gemini-2.5-flash:countTokens",
            "/v1beta/models",
            "/v1beta/models/gemini-2.5-flash",
            "/v1beta/cachedContents",
            "/v2/models/g:generateContent",
            "/v1beta/models/:generateContent",
            "/upload/v1beta/files",
            "/v1beta/models/a/b:generateContent"
        }) {
            assertThat(gemini.recognises("generativelanguage.googleapis.com", path))
                    .as(path)
                    .isFalse();
        }
        assertThat(gemini.recognises("aiplatform.googleapis.com", "/v1beta/models/g:generateContent"))
                .isFalse();
        assertThat(gemini.recognises(null, null)).isFalse();
    }

    @Test
    void vertexRecognisesGlobalRegionalAndExpressRoutes() {
        assertThat(vertex.kind()).isEqualTo("vertex-ai");
        String model = "/v1/projects/my-proj/locations/us-central1/publishers/google/models/gemini-2.5-flash";
        assertThat(vertex.recognises("us-central1-aiplatform.googleapis.com", model + ":generateContent"))
                .isTrue();
        assertThat(
                        vertex.recognises(
                                "aiplatform.googleapis.com",
                                "/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent"))
                .isTrue();
        assertThat(vertex.recognises(
                        "europe-west4-aiplatform.googleapis.com",
                        "/v1beta1/projects/p/locations/europe-west4/endpoints/1234567:generateContent"))
                .isTrue();
        assertThat(vertex.recognises(
                        "aiplatform.googleapis.com",
                        "/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent"))
                .isTrue();
        assertThat(vertex.recognises("us-central1-aiplatform.googleapis.com", model + ":countTokens"))
                .isFalse();
        assertThat(vertex.recognises(
                        "us-central1-aiplatform.googleapis.com",
                        "/v1/projects/p/locations/l/publishers/anthropic/models/claude:rawPredict"))
                .isFalse();
        assertThat(vertex.recognises("generativelanguage.googleapis.com", model + ":generateContent"))
                .isFalse();
        assertThat(vertex.recognises("-aiplatform.googleapis.com", model + ":generateContent"))
                .isFalse();
        assertThat(vertex.recognises("aiplatform.googleapis.com.evil.example", model + ":generateContent"))
                .isFalse();
    }

    static final String BODY = "{\"contents\":["
            + "{\"role\":\"user\",\"parts\":[{\"text\":\"What is the weather in Paris?\"}," // 29
            + "{\"inlineData\":{\"mimeType\":\"image/png\",\"data\":\"iVBORw0KGgo=\"}}]},"
            + "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}}}]},"
            + "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_weather\",\"response\":{\"t\":18}}}]}],"
            + "\"systemInstruction\":{\"parts\":[{\"text\":\"Answer briefly.\"}]}," // 15
            + "\"tools\":[{\"functionDeclarations\":[{\"name\":\"get_weather\"}]}],"
            + "\"generationConfig\":{\"maxOutputTokens\":512,\"temperature\":0.2}}";
    static final long BODY_CHARACTERS = 29
            + 15
            + "{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"}}".length()
            + "{\"name\":\"get_weather\",\"response\":{\"t\":18}}".length()
            + "{\"functionDeclarations\":[{\"name\":\"get_weather\"}]}".length();

    @Test
    void readsAGeminiRequestAndHashesTheKeyFromTheHeader() {
        RequestFacts f = gemini.readRequest(
                post(GEMINI + "/v1beta/models/gemini-2.5-flash:generateContent", BODY, "x-goog-api-key", "AIzaSy-test"),
                ESTIMATOR);
        assertThat(f.providerKind()).isEqualTo("gemini");
        assertThat(f.operation()).isEqualTo("generateContent");
        assertThat(f.model()).isEqualTo("gemini-2.5-flash");
        assertThat(f.streaming()).isFalse();
        assertThat(f.maxOutputTokens()).isEqualTo(512);
        assertThat(f.estimatedInputTokens())
                .isEqualTo(ESTIMATOR.estimateInputTokens("gemini-2.5-flash", BODY_CHARACTERS, 5));
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("AIzaSy-test"));
        assertThat(f.providerScope()).isEmpty();
        assertThat(f.providerCharge(Dimension.INPUT_TOKENS)).isEqualTo(f.estimatedInputTokens());
        assertThat(f.providerCharge(Dimension.REQUESTS)).isEqualTo(1);
        assertThat(f.providerCharge(Dimension.OUTPUT_TOKENS))
                .as("Gemini does not limit output")
                .isEqualTo(-1);
        assertThat(gemini.truesUp(Dimension.INPUT_TOKENS)).isTrue();
        assertThat(gemini.truesUp(Dimension.REQUESTS)).isFalse();
    }

    @Test
    void theKeyMayComeAsAQueryParameterAndIsNeverKept() {
        RequestFacts f = gemini.readRequest(
                post(GEMINI + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIzaSy%2Dtest", BODY),
                ESTIMATOR);
        assertThat(f.operation()).isEqualTo("streamGenerateContent");
        assertThat(f.streaming()).isTrue();
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("AIzaSy-test"));
        assertThat(f.toString()).doesNotContain("AIzaSy");
        assertThat(gemini.readRequest(
                        post(
                                GEMINI + "/v1beta/models/g:generateContent",
                                BODY,
                                "Authorization",
                                "Bearer ya29.token",
                                "x-goog-user-project",
                                "billing-proj"),
                        ESTIMATOR))
                .satisfies(r -> {
                    assertThat(r.apiKeyId()).isEqualTo(ApiKeyIds.of("ya29.token"));
                    assertThat(r.providerScope()).containsExactly(Map.entry("project", "billing-proj"));
                });
        assertThat(GeminiProtocol.queryParameter("alt=sse&key=", "key")).isNull();
        assertThat(GeminiProtocol.queryParameter("keys=1&key=a+b", "key")).isEqualTo("a b");
        assertThat(GeminiProtocol.queryParameter("key=%zz", "key")).isNull();
    }

    @Test
    void readsAVertexRequestWithProjectAndLocationAsScope() {
        RequestFacts f = vertex.readRequest(
                post(
                        VERTEX + "/v1/projects/my-proj/locations/us-central1/publishers/"
                                + "google/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
                        BODY,
                        "Authorization",
                        "Bearer ya29.a0"),
                ESTIMATOR);
        assertThat(f.providerKind()).isEqualTo("vertex-ai");
        assertThat(f.model()).isEqualTo("gemini-2.5-pro");
        assertThat(f.streaming()).isTrue();
        assertThat(f.apiKeyId()).isEqualTo(ApiKeyIds.of("ya29.a0"));
        assertThat(f.providerScope())
                .containsExactly(Map.entry("project", "my-proj"), Map.entry("location", "us-central1"));
        RequestFacts express = vertex.readRequest(
                post(
                        "https://aiplatform.googleapis.com/v1beta1/publishers/google/"
                                + "models/gemini-2.5-flash:generateContent",
                        BODY,
                        "x-goog-api-key",
                        "express"),
                ESTIMATOR);
        assertThat(express.model()).isEqualTo("gemini-2.5-flash");
        assertThat(express.apiKeyId()).isEqualTo(ApiKeyIds.of("express"));
        assertThat(express.providerScope()).isEmpty();
        RequestFacts endpoint = vertex.readRequest(
                post(VERTEX + "/v1/projects/p/locations/us-central1/endpoints/" + "987:generateContent", BODY),
                ESTIMATOR);
        assertThat(endpoint.model()).isEqualTo("987");
    }

    @Test
    void snakeCaseBodiesAreReadToo() {
        RequestFacts f = gemini.readRequest(
                post(
                        GEMINI + "/v1/models/g:generateContent",
                        "{\"contents\":[{\"parts\":"
                                + "[{\"text\":\"abcd\"}]}],\"system_instruction\":{\"parts\":[{\"text\":\"efgh\"}]},"
                                + "\"generation_config\":{\"max_output_tokens\":64}}"),
                ESTIMATOR);
        assertThat(f.maxOutputTokens()).isEqualTo(64);
        assertThat(f.estimatedInputTokens()).isEqualTo(ESTIMATOR.estimateInputTokens("g", 8, 2));
    }

    @Test
    void malformedRequestsYieldDefaults() {
        for (String body : new String[] {
            null,
            "",
            "not json",
            "{\"contents\":",
            "[1,2]",
            "{\"generationConfig\":{\"maxOutputTokens\":-5}}",
            "{\"contents\":{\"parts\":1},\"tools\":\"x\"}"
        }) {
            RequestFacts f = gemini.readRequest(post(GEMINI + "/v1beta/models/g:generateContent", body), ESTIMATOR);
            assertThat(f.operation()).isEqualTo("generateContent");
            assertThat(f.maxOutputTokens()).isEqualTo(RequestFacts.NO_MAX);
            assertThat(f.estimatedInputTokens()).isPositive();
        }
        assertThat(gemini.readRequest(null, ESTIMATOR).providerKind()).isEqualTo("gemini");
        assertThat(vertex.readRequest(post(VERTEX + "/v1/unknown", "{}"), null).operation())
                .isEqualTo("unknown");
    }

    @Test
    void noRateLimitHeaders() {
        Headers h = headers("x-ratelimit-remaining-requests", "5", "retry-after", "3");
        assertThat(gemini.readRateLimits(h, NOW).isEmpty()).isTrue();
        assertThat(vertex.readRateLimits(h, NOW).isEmpty()).isTrue();
    }

    // ---------------------------------------------------------------- errors

    static final String PER_MINUTE =
            "{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"You exceeded your current "
                    + "quota, please check your plan and billing details. For more information on this error, head to: "
                    + "https://ai.google.dev/gemini-api/docs/rate-limits.\\n* Quota exceeded for metric: generativelanguage."
                    + "googleapis.com/generate_content_free_tier_requests, limit: 10\\nPlease retry in 29.083414095s.\",\n"
                    + "    \"status\": \"RESOURCE_EXHAUSTED\",\n    \"details\": [\n      {\n"
                    + "        \"@type\": \"type.googleapis.com/google.rpc.QuotaFailure\",\n        \"violations\": [\n"
                    + "          {\n            \"quotaMetric\": \"generativelanguage.googleapis.com/"
                    + "generate_content_free_tier_requests\",\n            \"quotaId\": "
                    + "\"GenerateRequestsPerMinutePerProjectPerModel-FreeTier\",\n            \"quotaDimensions\": {\n"
                    + "              \"location\": \"global\",\n              \"model\": \"gemini-2.5-flash\"\n            },\n"
                    + "            \"quotaValue\": \"10\"\n          }\n        ]\n      },\n      {\n"
                    + "        \"@type\": \"type.googleapis.com/google.rpc.Help\",\n        \"links\": [{\"description\": "
                    + "\"Learn more about Gemini API quotas\",\"url\": \"https://ai.google.dev/gemini-api/docs/rate-limits\"}]\n"
                    + "      },\n      {\n        \"@type\": \"type.googleapis.com/google.rpc.RetryInfo\",\n"
                    + "        \"retryDelay\": \"29s\"\n      }\n    ]\n  }\n}\n";

    ProviderError classify(ProviderAdapterUnderTest which, int status, String body, String... headerNameValues) {
        return (which == ProviderAdapterUnderTest.GEMINI
                ? gemini.classifyError(status, headers(headerNameValues), body == null ? null : utf8(body), NOW)
                : vertex.classifyError(status, headers(headerNameValues), body == null ? null : utf8(body), NOW));
    }

    enum ProviderAdapterUnderTest {
        GEMINI,
        VERTEX
    }

    ProviderError classify(int status, String body, String... headerNameValues) {
        return classify(ProviderAdapterUnderTest.GEMINI, status, body, headerNameValues);
    }

    @Test
    void resourceExhaustedIsCapacityWithTheLongerOfRetryInfoAndTheMessage() {
        ProviderError e = classify(429, PER_MINUTE);
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.retryAfterMillis())
                .as("29.083414095s, not the truncated 29s")
                .isEqualTo(29_084);
        assertThat(e.limiter()).isEqualTo(Dimension.REQUESTS);
        assertThat(e.type()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(e.code()).isEqualTo("429");
        assertThat(e.message()).startsWith("You exceeded your current quota");

        String retryInfoOnly =
                "{\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\","
                        + "\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":\"type.googleapis.com/google.rpc."
                        + "RetryInfo\",\"retryDelay\":\"27.4s\"},{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\","
                        + "\"violations\":[{\"quotaMetric\":\"generativelanguage.googleapis.com/generate_content_paid_tier_"
                        + "input_token_count\",\"quotaId\":\"GenerateContentPaidTierInputTokensPerModelPerMinute\"}]}]}}";
        ProviderError tokens = classify(429, retryInfoOnly);
        assertThat(tokens.retryAfterMillis()).isEqualTo(27_400);
        assertThat(tokens.limiter()).isEqualTo(Dimension.INPUT_TOKENS);
        assertThat(tokens.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
    }

    @Test
    void aDailyQuotaIsPolicyWithTheTimeUntilMidnightPacific() {
        String perDay = PER_MINUTE.replace(
                "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                "GenerateRequestsPerDayPerProjectPerModel-FreeTier");
        ProviderError e = classify(429, perDay);
        assertThat(e.outcome()).isEqualTo(OutcomeClass.NON_RETRYABLE_POLICY);
        assertThat(e.limiter()).isEqualTo(Dimension.REQUESTS);
        // 10:14:30Z is 02:14:30 PST; midnight PST is 08:00Z the next day
        assertThat(e.retryAfterMillis())
                .isEqualTo(Instant.parse("2026-11-30T08:00:00Z").toEpochMilli() - NOW);
        // across the end of daylight saving time (1 Nov 2026): midnight PDT is 07:00Z
        long lateOctober = Instant.parse("2026-11-01T06:30:00Z").toEpochMilli();
        assertThat(GeminiErrors.untilNextPacificMidnight(lateOctober)).isEqualTo(30 * 60_000L);
        long summer = Instant.parse("2026-07-01T06:59:59.500Z").toEpochMilli();
        assertThat(GeminiErrors.untilNextPacificMidnight(summer)).isEqualTo(500);
    }

    @Test
    void vertexsArrayWrappedExhaustionIsCapacityWithoutAHint() {
        String body = "[{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource exhausted. Please try again "
                + "later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more "
                + "details.\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n]";
        ProviderError e = classify(ProviderAdapterUnderTest.VERTEX, 429, body);
        assertThat(e.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(e.hasWaitHint()).isFalse();
        assertThat(e.type()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(e.message()).startsWith("Resource exhausted.");
    }

    @Test
    void serverErrorsAreOverloadAndClientErrorsTheRequestsFault() {
        ProviderError unavailable = classify(
                503,
                "{\"error\":{\"code\":503,\"message\":\"The model is overloaded. "
                        + "Please try again later.\",\"status\":\"UNAVAILABLE\"}}");
        assertThat(unavailable.outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(unavailable.type()).isEqualTo("UNAVAILABLE");
        assertThat(classify(
                                500,
                                "{\"error\":{\"code\":500,\"message\":\"An internal error has occurred.\","
                                        + "\"status\":\"INTERNAL\"}}")
                        .outcome())
                .isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        assertThat(classify(504, null).outcome()).isEqualTo(OutcomeClass.RETRYABLE_OVERLOAD);
        String[][] cases = {
            {"400", "INVALID_ARGUMENT"},
            {"400", "FAILED_PRECONDITION"},
            {"401", "UNAUTHENTICATED"},
            {"403", "PERMISSION_DENIED"},
            {"404", "NOT_FOUND"}
        };
        for (String[] c : cases) {
            ProviderError e = classify(
                    Integer.parseInt(c[0]),
                    "{\"error\":{\"code\":" + c[0] + ",\"message\":\"no\"," + "\"status\":\"" + c[1] + "\"}}");
            assertThat(e.outcome()).as(c[1]).isEqualTo(OutcomeClass.NON_RETRYABLE_REQUEST);
            assertThat(e.type()).isEqualTo(c[1]);
        }
    }

    @Test
    void xShouldRetryIsObeyedAndHeadersHintWhenTheBodyDoesNot() {
        assertThat(classify(429, PER_MINUTE, "x-should-retry", "false")
                        .outcome()
                        .retryable())
                .isFalse();
        assertThat(classify(429, "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\"}}", "retry-after", "4")
                        .retryAfterMillis())
                .isEqualTo(4000);
    }

    @Test
    void garbageErrorBodiesNeverThrow() {
        for (String body : new String[] {
            null,
            "",
            "[]",
            "[1]",
            "null",
            "{\"error\":\"text\"}",
            "{\"error\":[1]}",
            "<html>",
            "{\"error\":{\"details\":{\"retryDelay\":1}}}",
            "[{\"error\":{\"code\":{\"x\":1}}}]",
            "{\"error\":{\"details\":[{\"retryDelay\":\"-5s\"},{\"violations\":[{\"quotaId\":7}]}]}}"
        }) {
            assertThat(classify(429, body).outcome()).as(body).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        }
        Random random = new Random(19);
        for (int i = 0; i < 500; i++) {
            byte[] junk = new byte[random.nextInt(300)];
            random.nextBytes(junk);
            assertThat(gemini.classifyError(400 + i % 200, null, junk, NOW)).isNotNull();
        }
    }

    // ---------------------------------------------------------------- local rejection

    @Test
    void localRejectionIsGooglesOwn429WithRetryInfoErrorInfoAndSluice() {
        RequestFacts facts = RequestFacts.builder("gemini")
                .model("gemini-2.5-flash")
                .apiKeyId("k_3f9a1c")
                .estimatedInputTokens(4200)
                .build();
        Rejection r = Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.INPUT_TOKENS)
                .scope("gemini/prod/tenant=search")
                .tenant("search")
                .trafficClass("interactive")
                .retryAfterMillis(2400)
                .waitedMillis(300)
                .queueReason("deadline")
                .build();
        LocalAnswer a = gemini.localRejection(r, facts);
        assertThat(a.status()).isEqualTo(429);
        assertThat(a.headers())
                .containsEntry("x-should-retry", List.of("false"))
                .containsEntry("retry-after", List.of("3"))
                .containsEntry("retry-after-ms", List.of("2400"))
                .containsEntry("x-sluice-decision", List.of("rejected_locally"));
        String body = new String(a.body(), StandardCharsets.UTF_8);
        assertThat(body)
                .startsWith("{\"error\":{\"code\":429,")
                .contains("\"status\":\"RESOURCE_EXHAUSTED\"")
                .contains("{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"2.4s\"}")
                .contains("\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"REJECTED_LOCALLY\","
                        + "\"domain\":\"sluice.dev\"");
        Map<String, String> f = JsonFields.pick(
                a.body(),
                "error.message",
                "error.sluice.gateway_decision",
                "error.sluice.limiter",
                "error.sluice.provider",
                "error.sluice.queue.waited_ms",
                "error.details[].metadata.gateway_decision",
                "error.details[].metadata.queue.waited_ms",
                "error.details[].metadata.retry_after_ms");
        assertThat(f)
                .containsEntry("error.sluice.gateway_decision", "rejected_locally")
                .containsEntry("error.sluice.limiter", "input_tokens")
                .containsEntry("error.sluice.provider", "gemini")
                .containsEntry("error.sluice.queue.waited_ms", "300")
                .containsEntry("error.details[].metadata.gateway_decision", "rejected_locally")
                .containsEntry("error.details[].metadata.queue.waited_ms", "300")
                .containsEntry("error.details[].metadata.retry_after_ms", "2400");
        assertThat(f.get("error.message")).endsWith("Please retry in 2.4s.");
        // our own answer, read back as Gemini's, says what we meant
        ProviderError back = gemini.classifyError(429, Headers.empty(), a.body(), NOW);
        assertThat(back.outcome()).isEqualTo(OutcomeClass.RETRYABLE_CAPACITY);
        assertThat(back.retryAfterMillis()).isEqualTo(2400);
        assertThat(vertex.localRejection(r, facts).body()).isNotEmpty();
    }

    @Test
    void notAdmissibleCarriesNoRetryInfo() {
        Rejection r = Rejection.builder(GatewayDecision.NOT_ADMISSIBLE)
                .limiter(Dimension.INPUT_TOKENS)
                .retryAfterMillis(60_000)
                .build();
        String body = new String(gemini.localRejection(r, null).body(), StandardCharsets.UTF_8);
        assertThat(body).doesNotContain("RetryInfo").doesNotContain("retry in").contains("ErrorInfo");
        assertThat(gemini.localRejection(null, null).status()).isEqualTo(429);
    }

    @Test
    void durationsAreProtobufJson() {
        assertThat(GeminiLocalRejection.duration(2400)).isEqualTo("2.4s");
        assertThat(GeminiLocalRejection.duration(3000)).isEqualTo("3s");
        assertThat(GeminiLocalRejection.duration(50)).isEqualTo("0.05s");
        for (long ms : new long[] {1, 999, 1000, 1001, 61_250, 86_400_000}) {
            assertThat(WaitHints.goDuration(GeminiLocalRejection.duration(ms))).isEqualTo(ms);
        }
    }
}
