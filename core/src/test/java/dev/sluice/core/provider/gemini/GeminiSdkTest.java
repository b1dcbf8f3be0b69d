package dev.sluice.core.provider.gemini;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.feed;
import static dev.sluice.core.provider.ProviderFixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.genai.Client;
import com.google.genai.ResponseStream;
import com.google.genai.errors.ClientException;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.GenerateContentResponse;
import com.google.genai.types.GenerateContentResponseUsageMetadata;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.LoopbackServer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.wire.ApiKeyIds;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The real google-genai 2.0.0 against a loopback server: a local rejection must surface as its
 * usual {@code ClientException} (429, {@code RESOURCE_EXHAUSTED}) with Sluice's decision readable
 * from it, and hand-built fixtures of both stream forms must be read by the SDK with the same
 * usage as the adapter's parser.
 *
 * <p>google-genai's own {@code RetryInterceptor} retries a 429 whatever {@code x-should-retry} and
 * {@code retry-after} say: 5 attempts in all at its defaults (measured with the default client: 5
 * hits and about 40 s of backoff). The test keeps the default attempt count and shortens only the
 * delays; neutralising the interceptor belongs to the google-genai instrumentation.
 */
class GeminiSdkTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final GenerateContentConfig CONFIG = GenerateContentConfig.builder()
            .maxOutputTokens(2048)
            .systemInstruction(com.google.genai.types.Content.fromParts(
                    com.google.genai.types.Part.fromText("Réponds en français.")))
            .build();

    final GeminiAdapter adapter = new GeminiAdapter(() -> 0L);
    final VertexAiAdapter vertex = new VertexAiAdapter(() -> 0L);

    /** Default attempts, tiny delays. */
    static HttpOptions options(LoopbackServer server) {
        return HttpOptions.builder()
                .baseUrl(server.origin())
                .retryOptions(HttpRetryOptions.builder()
                        .initialDelay(0.001)
                        .maxDelay(0.005)
                        .build())
                .build();
    }

    static Client gemini(LoopbackServer server) {
        return Client.builder()
                .apiKey("AIzaSy-test")
                .httpOptions(options(server))
                .build();
    }

    static Rejection rejection() {
        return Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.INPUT_TOKENS)
                .scope("gemini/prod/tenant=search")
                .tenant("search")
                .trafficClass("interactive")
                .retryAfterMillis(2400)
                .estimatedOutputTokens(800)
                .traceId("trace-1")
                .build();
    }

    /** The ErrorInfo detail line google-genai prints into its message. */
    static JsonNode errorInfo(String message) throws Exception {
        for (String line : message.split("\n")) {
            String json = line.startsWith("Details: ") ? line.substring(9) : line;
            if (json.startsWith("{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\"")) {
                return JSON.readTree(json);
            }
        }
        throw new AssertionError("no ErrorInfo in: " + message);
    }

    @Test
    void localRejectionRaisesClientExceptionWithSluiceReadableFromItsMessage() throws Exception {
        RequestFacts facts = RequestFacts.builder("gemini")
                .model("gemini-2.5-flash")
                .apiKeyId(ApiKeyIds.of("AIzaSy-test"))
                .estimatedInputTokens(4200)
                .build();
        LocalAnswer answer = adapter.localRejection(rejection(), facts);
        try (LoopbackServer server = new LoopbackServer(answer)) {
            Client client = gemini(server);
            ClientException e = catchThrowableOfType(
                    ClientException.class, () -> client.models.generateContent("gemini-2.5-flash", "Bonjour", CONFIG));
            client.close();

            assertThat(server.hits)
                    .as("google-genai retries a 429 itself, x-should-retry or not")
                    .hasValue(5);
            assertThat(e.code()).isEqualTo(429);
            assertThat(e.status()).isEqualTo("RESOURCE_EXHAUSTED");
            assertThat(e.message())
                    .startsWith("Rate limit reached in Sluice for gemini-2.5-flash on input_tokens")
                    .contains("Please retry in 2.4s.")
                    .contains("{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"2.4s\"}");

            // As an application reads it: the ErrorInfo detail in e.message(), domain sluice.dev.
            JsonNode info = errorInfo(e.message());
            assertThat(info.get("domain").asText()).isEqualTo("sluice.dev");
            assertThat(info.get("reason").asText()).isEqualTo("REJECTED_LOCALLY");
            JsonNode sluice = info.get("metadata");
            assertThat(sluice.get("gateway_decision").asText()).isEqualTo("rejected_locally");
            assertThat(sluice.get("limiter").asText()).isEqualTo("input_tokens");
            assertThat(sluice.get("provider").asText()).isEqualTo("gemini");
            assertThat(sluice.get("retry_after_ms").asText()).isEqualTo("2400");
            assertThat(sluice.get("api_key_id").asText()).isEqualTo(ApiKeyIds.of("AIzaSy-test"));
            assertThat(sluice.get("trace_id").asText()).isEqualTo("trace-1");
            assertThat(e.getMessage()).doesNotContain("AIzaSy-test").doesNotContain("\"sluice\"");

            // The request the SDK sent, read by the adapter.
            RequestFacts sent = adapter.readRequest(
                    server.seen.get(0).asRequest("https://generativelanguage.googleapis.com"), ESTIMATOR);
            assertThat(sent.model()).isEqualTo("gemini-2.5-flash");
            assertThat(sent.operation()).isEqualTo("generateContent");
            assertThat(sent.maxOutputTokens()).isEqualTo(2048);
            assertThat(sent.apiKeyId()).isEqualTo(ApiKeyIds.of("AIzaSy-test"));
            assertThat(sent.estimatedInputTokens())
                    .isEqualTo(ESTIMATOR.estimateInputTokens(
                            "gemini-2.5-flash", "Bonjour".length() + "Réponds en français.".length(), 2));
        }
    }

    @Test
    void anSseStreamFixtureIsReadByTheSdkAndUsageAgrees() throws Exception {
        byte[] sse = resource("/gemini/stream.sse");
        try (LoopbackServer server =
                new LoopbackServer(200, Map.of("content-type", List.of("text/event-stream")), sse)) {
            Client client = gemini(server);
            List<GenerateContentResponse> chunks = new ArrayList<>();
            try (ResponseStream<GenerateContentResponse> stream = client.models.generateContentStream(
                    "gemini-2.5-flash", "Quelles sont les couleurs du drapeau ?", CONFIG)) {
                stream.forEach(chunks::add);
            }
            client.close();
            StringBuilder text = new StringBuilder();
            chunks.forEach(c -> text.append(c.text()));
            assertThat(text.toString())
                    .isEqualTo("Les trois couleurs du drapeau français sont le bleu, le blanc " + "et le rouge 🇫🇷.");
            GenerateContentResponseUsageMetadata sdk =
                    chunks.get(chunks.size() - 1).usageMetadata().orElseThrow();

            LoopbackServer.Seen seen = server.seen.get(0);
            assertThat(seen.query).as("google-genai always streams as SSE").isEqualTo("alt=sse");
            RequestFacts facts =
                    adapter.readRequest(seen.asRequest("https://generativelanguage.googleapis.com"), ESTIMATOR);
            assertThat(facts.operation()).isEqualTo("streamGenerateContent");
            assertThat(facts.streaming()).isTrue();

            Usage ours = feed(
                            adapter.usageParser(
                                    facts, Headers.of(Map.of("content-type", List.of("text/event-stream"))), ESTIMATOR),
                            sse)
                    .usage();
            assertUsageAgrees(ours, sdk);
        }
    }

    @Test
    void theResponseFixtureIsReadByTheSdkAndUsageAgrees() throws Exception {
        byte[] json = resource("/gemini/response.json");
        try (LoopbackServer server =
                new LoopbackServer(200, Map.of("content-type", List.of("application/json")), json)) {
            Client client = gemini(server);
            GenerateContentResponse response = client.models.generateContent("gemini-2.5-pro", "Météo ?", CONFIG);
            client.close();
            assertThat(response.functionCalls())
                    .singleElement()
                    .satisfies(c -> assertThat(c.name()).contains("get_weather"));
            Usage ours = feed(
                            adapter.usageParser(
                                    adapter.readRequest(
                                            server.seen.get(0).asRequest("https://generativelanguage.googleapis.com"),
                                            ESTIMATOR),
                                    Headers.of(Map.of("content-type", List.of("application/json"))),
                                    ESTIMATOR),
                            json)
                    .usage();
            GenerateContentResponseUsageMetadata sdk = response.usageMetadata().orElseThrow();
            assertUsageAgrees(ours, sdk);
            assertThat(ours.totalTokens())
                    .isEqualTo(sdk.totalTokenCount().orElseThrow().longValue());
        }
    }

    @Test
    void onVertexTheSameRejectionRaisesTheSameExceptionAndTheRouteNamesProjectAndLocation() throws Exception {
        LocalAnswer answer = vertex.localRejection(
                rejection(),
                RequestFacts.builder("vertex-ai").model("gemini-2.5-flash").build());
        try (LoopbackServer server = new LoopbackServer(answer)) {
            GoogleCredentials token = GoogleCredentials.create(
                    new AccessToken("ya29.test-token", new Date(System.currentTimeMillis() + 3_600_000)));
            Client client = Client.builder()
                    .vertexAI(true)
                    .project("my-proj")
                    .location("europe-west4")
                    .credentials(token)
                    .httpOptions(options(server))
                    .build();
            ClientException e = catchThrowableOfType(
                    ClientException.class, () -> client.models.generateContent("gemini-2.5-flash", "Bonjour", CONFIG));
            client.close();
            assertThat(e.code()).isEqualTo(429);
            assertThat(e.status()).isEqualTo("RESOURCE_EXHAUSTED");
            assertThat(errorInfo(e.message()).get("metadata").get("provider").asText())
                    .isEqualTo("vertex-ai");

            LoopbackServer.Seen seen = server.seen.get(0);
            assertThat(vertex.recognises("europe-west4-aiplatform.googleapis.com", seen.path))
                    .as(seen.path)
                    .isTrue();
            RequestFacts facts =
                    vertex.readRequest(seen.asRequest("https://europe-west4-aiplatform.googleapis.com"), ESTIMATOR);
            assertThat(facts.model()).isEqualTo("gemini-2.5-flash");
            assertThat(facts.providerScope())
                    .containsEntry("project", "my-proj")
                    .containsEntry("location", "europe-west4");
            assertThat(facts.apiKeyId()).isEqualTo(ApiKeyIds.of("ya29.test-token"));
        }
    }

    static void assertUsageAgrees(Usage ours, GenerateContentResponseUsageMetadata sdk) {
        assertThat(ours.reportedByProvider()).isTrue();
        assertThat(ours.inputTokens())
                .isEqualTo(sdk.promptTokenCount().orElse(0)
                        + sdk.toolUsePromptTokenCount().orElse(0));
        assertThat(ours.cachedInputTokens())
                .isEqualTo(sdk.cachedContentTokenCount().orElse(0).longValue());
        assertThat(ours.outputTokens())
                .isEqualTo(sdk.candidatesTokenCount().orElse(0)
                        + sdk.thoughtsTokenCount().orElse(0));
        assertThat(ours.reasoningTokens())
                .isEqualTo(sdk.thoughtsTokenCount().orElse(0).longValue());
    }
}
