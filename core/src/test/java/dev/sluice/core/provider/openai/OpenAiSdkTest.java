package dev.sluice.core.provider.openai;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.feed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderRequest;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.wire.ApiKeyIds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The real openai-java 4.101.0 at its default settings (two retries, its own backoff) against a
 * loopback server: local rejections must surface as the SDK's {@code RateLimitException} after a
 * single attempt with the {@code sluice} object readable, and the hand-built stream fixtures must
 * be framed the way the SDK reads them.
 */
class OpenAiSdkTest {

    static final ChatCompletionCreateParams CHAT = ChatCompletionCreateParams.builder()
            .model("gpt-4o-mini")
            .addUserMessage("Hi")
            .build();

    final OpenAiAdapter adapter = new OpenAiAdapter(() -> 0L);

    static OpenAIClient client(LoopbackProvider provider) {
        return OpenAIOkHttpClient.builder()
                .apiKey("sk-test")
                .baseUrl(provider.baseUrl())
                .build();
    }

    // JsonValue is a Kotlin JsonField<Nothing>, which Java sees as a raw type: hence the casts.
    @SuppressWarnings("unchecked")
    static Map<String, JsonValue> object(JsonValue value) {
        Optional<Map<String, JsonValue>> object = value.asObject();
        assertThat(object).as("an object: %s", value).isPresent();
        return object.get();
    }

    @SuppressWarnings("unchecked")
    static String string(JsonValue value) {
        Optional<String> string = value.asString();
        return string.orElse(null);
    }

    @SuppressWarnings("unchecked")
    static long number(JsonValue value) {
        Optional<Number> number = value.asNumber();
        assertThat(number).as("a number: %s", value).isPresent();
        return number.get().longValue();
    }

    @Test
    void localRejectionRaisesRateLimitExceptionAfterOneAttemptWithSluiceReadable() throws Exception {
        Rejection rejection = Rejection.builder(GatewayDecision.REJECTED_LOCALLY)
                .limiter(Dimension.OUTPUT_TOKENS)
                .scope("openai/prod/tenant=search")
                .tenant("search")
                .trafficClass("interactive")
                .retryAfterMillis(2400)
                .estimatedOutputTokens(800)
                .traceId("trace-1")
                .build();
        RequestFacts facts = RequestFacts.builder("openai")
                .model("gpt-4o-mini")
                .apiKeyId(ApiKeyIds.of("sk-test"))
                .estimatedInputTokens(4200)
                .build();
        LocalAnswer answer = adapter.localRejection(rejection, facts);

        try (LoopbackProvider provider = new LoopbackProvider(answer.status(), answer.headers(), answer.body())) {
            OpenAIClient client = client(provider);
            RateLimitException e = catchThrowableOfType(
                    RateLimitException.class, () -> client.chat().completions().create(CHAT));
            client.close();

            assertThat(provider.hits)
                    .as("x-should-retry: false stops the SDK's two retries")
                    .hasValue(1);
            assertThat(e.statusCode()).isEqualTo(429);
            assertThat(e.code()).contains("rate_limit_exceeded");
            assertThat(e.type()).contains("tokens");
            assertThat(e.getMessage())
                    .startsWith("429: Rate limit reached in Sluice for gpt-4o-mini on output_tokens")
                    .endsWith("Please try again in 2.4s.");
            assertThat(e.headers().values("x-sluice-decision")).containsExactly("rejected_locally");
            assertThat(e.headers().values("retry-after-ms")).containsExactly("2400");

            // As an application reads it: e.body() is the "error" object, sluice inside it.
            Map<String, JsonValue> sluice = object(object(e.body()).get("sluice"));
            assertThat(string(sluice.get("gateway_decision"))).isEqualTo("rejected_locally");
            assertThat(string(sluice.get("limiter"))).isEqualTo("output_tokens");
            assertThat(number(sluice.get("retry_after_ms"))).isEqualTo(2400L);
            assertThat(string(sluice.get("api_key_id"))).isEqualTo(ApiKeyIds.of("sk-test"));
            assertThat(string(sluice.get("trace_id"))).isEqualTo("trace-1");
            assertThat(e.body().toString()).doesNotContain("sk-test");
        }
    }

    @Test
    void aSluiceObjectBesideErrorWouldBeLostWhichIsWhyItSitsInside() throws Exception {
        byte[] topLevel = ("{\"error\":{\"message\":\"m\",\"type\":\"tokens\",\"param\":null,"
                        + "\"code\":\"rate_limit_exceeded\"},\"sluice\":{\"gateway_decision\":\"rejected_locally\"}}")
                .getBytes(StandardCharsets.UTF_8);
        try (LoopbackProvider provider = new LoopbackProvider(
                429,
                Map.of("content-type", List.of("application/json"), "x-should-retry", List.of("false")),
                topLevel)) {
            OpenAIClient client = client(provider);
            RateLimitException e = catchThrowableOfType(
                    RateLimitException.class, () -> client.chat().completions().create(CHAT));
            client.close();
            assertThat(object(e.body())).doesNotContainKey("sluice").containsKey("code");
            assertThat(e.getMessage()).doesNotContain("sluice");
        }
    }

    @Test
    void withoutXShouldRetryTheSdkWouldHaveRetriedTwice() throws Exception {
        LocalAnswer answer = adapter.localRejection(
                Rejection.builder(GatewayDecision.QUEUE_FULL).build(), null);
        Map<String, List<String>> headers = new java.util.LinkedHashMap<>(answer.headers());
        headers.remove("x-should-retry");
        headers.put("retry-after-ms", List.of("10")); // keep the SDK's backoff between its retries short
        try (LoopbackProvider provider = new LoopbackProvider(429, headers, answer.body())) {
            OpenAIClient client = client(provider);
            catchThrowableOfType(
                    RateLimitException.class, () -> client.chat().completions().create(CHAT));
            client.close();
            assertThat(provider.hits)
                    .as("the control: the header is what stops the retries")
                    .hasValue(3);
        }
    }

    @Test
    void chatStreamFixtureIsFramedAsTheSdkReadsItAndUsageAgrees() throws Exception {
        byte[] sse = OpenAiUsageTest.fixture("chat-stream-with-usage.sse");
        try (LoopbackProvider provider =
                new LoopbackProvider(200, Map.of("content-type", List.of("text/event-stream; charset=utf-8")), sse)) {
            OpenAIClient client = client(provider);
            ChatCompletionCreateParams params = CHAT.toBuilder()
                    .maxCompletionTokens(50)
                    .streamOptions(ChatCompletionStreamOptions.builder()
                            .includeUsage(true)
                            .build())
                    .build();
            List<ChatCompletionChunk> chunks = new ArrayList<>();
            try (StreamResponse<ChatCompletionChunk> stream =
                    client.chat().completions().createStreaming(params)) {
                stream.stream().forEach(chunks::add);
            }
            client.close();

            StringBuilder text = new StringBuilder();
            chunks.forEach(c -> c.choices().forEach(ch -> ch.delta().content().ifPresent(text::append)));
            assertThat(text.toString()).isEqualTo("Hello there! How can I help 😊?");
            ChatCompletionChunk last = chunks.get(chunks.size() - 1);
            assertThat(last.choices()).isEmpty();
            long sdkPrompt = last.usage().orElseThrow().promptTokens();
            long sdkCompletion = last.usage().orElseThrow().completionTokens();

            // The request the SDK really sent, read by the adapter.
            LoopbackProvider.Seen sent = provider.seen.get(0);
            RequestFacts facts = adapter.readRequest(
                    ProviderRequest.of(
                            "POST", "https://api.openai.com" + sent.path, Headers.of(sent.headers), sent.body),
                    ESTIMATOR);
            assertThat(facts.operation()).isEqualTo("chat.completions");
            assertThat(facts.model()).isEqualTo("gpt-4o-mini");
            assertThat(facts.streaming()).isTrue();
            assertThat(facts.streamUsageRequested()).isTrue();
            assertThat(facts.maxOutputTokens()).isEqualTo(50);
            assertThat(facts.apiKeyId()).isEqualTo(ApiKeyIds.of("sk-test"));

            Usage ours = feed(
                            adapter.usageParser(
                                    facts, Headers.of(Map.of("content-type", List.of("text/event-stream"))), ESTIMATOR),
                            sse)
                    .usage();
            assertThat(ours.reportedByProvider()).isTrue();
            assertThat(ours.inputTokens()).isEqualTo(sdkPrompt);
            assertThat(ours.outputTokens()).isEqualTo(sdkCompletion);
        }
    }

    @Test
    void responsesStreamFixtureIsFramedAsTheSdkReadsItAndUsageAgrees() throws Exception {
        byte[] sse = OpenAiUsageTest.fixture("responses-stream.sse");
        try (LoopbackProvider provider =
                new LoopbackProvider(200, Map.of("content-type", List.of("text/event-stream")), sse)) {
            OpenAIClient client = client(provider);
            List<ResponseStreamEvent> events = new ArrayList<>();
            ResponseCreateParams params = ResponseCreateParams.builder()
                    .model("gpt-4.1")
                    .input("Hi")
                    .maxOutputTokens(64L)
                    .build();
            try (StreamResponse<ResponseStreamEvent> stream = client.responses().createStreaming(params)) {
                stream.stream().forEach(events::add);
            }
            client.close();

            StringBuilder text = new StringBuilder();
            events.forEach(e -> e.outputTextDelta().ifPresent(d -> text.append(d.delta())));
            assertThat(text.toString()).isEqualTo("Hi there, friend ✨");
            var sdkUsage = events.get(events.size() - 1)
                    .completed()
                    .orElseThrow()
                    .response()
                    .usage()
                    .orElseThrow();

            LoopbackProvider.Seen sent = provider.seen.get(0);
            RequestFacts facts = adapter.readRequest(
                    ProviderRequest.of(
                            "POST", "https://api.openai.com" + sent.path, Headers.of(sent.headers), sent.body),
                    ESTIMATOR);
            assertThat(facts.operation()).isEqualTo("responses");
            assertThat(facts.streaming()).isTrue();
            assertThat(facts.maxOutputTokens()).isEqualTo(64);

            UsageParser parser = feed(
                    adapter.usageParser(
                            facts, Headers.of(Map.of("content-type", List.of("text/event-stream"))), ESTIMATOR),
                    sse);
            assertThat(parser.usage().inputTokens()).isEqualTo(sdkUsage.inputTokens());
            assertThat(parser.usage().outputTokens()).isEqualTo(sdkUsage.outputTokens());
            assertThat(parser.usage().cachedInputTokens())
                    .isEqualTo(sdkUsage.inputTokensDetails().cachedTokens());
            assertThat(parser.streamError()).isNull();
        }
    }

    @Test
    void failedResponsesStreamReachesTheSdkAsAFailedEventAndUsAsAStreamError() throws Exception {
        byte[] sse = OpenAiUsageTest.fixture("responses-stream-failed.sse");
        try (LoopbackProvider provider =
                new LoopbackProvider(200, Map.of("content-type", List.of("text/event-stream")), sse)) {
            OpenAIClient client = client(provider);
            List<ResponseStreamEvent> events = new ArrayList<>();
            try (StreamResponse<ResponseStreamEvent> stream = client.responses()
                    .createStreaming(ResponseCreateParams.builder()
                            .model("gpt-4.1")
                            .input("Hi")
                            .build())) {
                stream.stream().forEach(events::add);
            }
            client.close();
            var failed = events.get(events.size() - 1).failed().orElseThrow();
            assertThat(failed.response().error().orElseThrow().code().asString())
                    .isEqualTo("rate_limit_exceeded");
        }
        UsageParser parser = feed(
                adapter.usageParser(
                        RequestFacts.builder("openai").streaming(true).build(), Headers.empty(), ESTIMATOR),
                sse);
        assertThat(parser.streamError().code()).isEqualTo("rate_limit_exceeded");
    }
}
