package dev.sluice.core.provider.anthropic;

import static dev.sluice.core.provider.ProviderFixtures.ESTIMATOR;
import static dev.sluice.core.provider.ProviderFixtures.feed;
import static dev.sluice.core.provider.ProviderFixtures.resource;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.RateLimitException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.LoopbackServer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.wire.ApiKeyIds;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The real anthropic-java 3.14.0 at its default settings (two retries, its own backoff) against a
 * loopback server: a local rejection must surface as the SDK's {@code RateLimitException} after a
 * single attempt, with the {@code sluice} object readable from it; and the hand-built stream
 * fixture must be one the SDK reads, with the same usage as the adapter's parser.
 */
class AnthropicSdkTest {

    static final MessageCreateParams PARAMS = MessageCreateParams.builder()
            .model("claude-sonnet-4-5")
            .maxTokens(1024)
            .system("Be brief.")
            .addUserMessage("Weather in Paris?")
            .build();

    final AnthropicAdapter adapter = new AnthropicAdapter(() -> 0L);

    static AnthropicClient client(LoopbackServer server) {
        return AnthropicOkHttpClient.builder()
                .apiKey("sk-ant-test")
                .baseUrl(server.origin())
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
                .scope("anthropic/prod/tenant=search")
                .tenant("search")
                .trafficClass("interactive")
                .retryAfterMillis(2400)
                .estimatedOutputTokens(800)
                .traceId("trace-1")
                .build();
        RequestFacts facts = RequestFacts.builder("anthropic")
                .model("claude-sonnet-4-5")
                .apiKeyId(ApiKeyIds.of("sk-ant-test"))
                .estimatedInputTokens(4200)
                .build();
        LocalAnswer answer = adapter.localRejection(rejection, facts);

        try (LoopbackServer server = new LoopbackServer(answer)) {
            AnthropicClient client = client(server);
            RateLimitException e = catchThrowableOfType(
                    RateLimitException.class, () -> client.messages().create(PARAMS));
            client.close();

            assertThat(server.hits)
                    .as("x-should-retry: false stops the SDK's two retries")
                    .hasValue(1);
            assertThat(e.statusCode()).isEqualTo(429);
            assertThat(e.errorType().map(Object::toString)).contains("rate_limit_error");
            assertThat(e.apiMessage())
                    .hasValueSatisfying(m -> assertThat(m)
                            .startsWith("Rate limit reached in Sluice for claude-sonnet-4-5 on output_tokens")
                            .endsWith("Please try again in 2.4 seconds."));
            assertThat(e.requestId()).hasValueSatisfying(id -> assertThat(id).startsWith("req_sluice_"));
            assertThat(e.headers().values("x-sluice-decision")).containsExactly("rejected_locally");
            assertThat(e.headers().values("retry-after")).containsExactly("3");

            // As an application reads it: e.body() is the whole envelope, sluice inside "error".
            Map<String, JsonValue> sluice =
                    object(object(object(e.body()).get("error")).get("sluice"));
            assertThat(string(sluice.get("gateway_decision"))).isEqualTo("rejected_locally");
            assertThat(string(sluice.get("limiter"))).isEqualTo("output_tokens");
            assertThat(string(sluice.get("provider"))).isEqualTo("anthropic");
            assertThat(number(sluice.get("retry_after_ms"))).isEqualTo(2400L);
            assertThat(string(sluice.get("api_key_id"))).isEqualTo(ApiKeyIds.of("sk-ant-test"));
            assertThat(string(sluice.get("trace_id"))).isEqualTo("trace-1");
            assertThat(e.body().toString()).doesNotContain("sk-ant-test");
        }
    }

    @Test
    void withoutXShouldRetryTheSdkWouldHaveRetriedTwice() throws Exception {
        LocalAnswer answer = adapter.localRejection(
                Rejection.builder(GatewayDecision.QUEUE_FULL).build(), null);
        Map<String, List<String>> headers = new LinkedHashMap<>(answer.headers());
        headers.remove("x-should-retry");
        headers.put("retry-after-ms", List.of("10")); // keep the SDK's backoff between its retries short
        try (LoopbackServer server = new LoopbackServer(429, headers, answer.body())) {
            AnthropicClient client = client(server);
            catchThrowableOfType(
                    RateLimitException.class, () -> client.messages().create(PARAMS));
            client.close();
            assertThat(server.hits)
                    .as("the control: the header is what stops the retries")
                    .hasValue(3);
        }
    }

    @Test
    void streamFixtureIsReadByTheSdkAndUsageAgrees() throws Exception {
        byte[] sse = resource("/anthropic/stream.sse");
        try (LoopbackServer server =
                new LoopbackServer(200, Map.of("content-type", List.of("text/event-stream; charset=utf-8")), sse)) {
            AnthropicClient client = client(server);
            MessageAccumulator accumulator = MessageAccumulator.create();
            StringBuilder text = new StringBuilder();
            try (StreamResponse<RawMessageStreamEvent> stream =
                    client.messages().createStreaming(PARAMS)) {
                stream.stream().forEach(event -> {
                    accumulator.accumulate(event);
                    event.contentBlockDelta().flatMap(d -> d.delta().text()).ifPresent(t -> text.append(t.text()));
                });
            }
            client.close();
            Message message = accumulator.message();
            com.anthropic.models.messages.Usage sdk = message.usage();
            assertThat(text.toString()).isEqualTo("Bonjour ! Voici la météo à Paris ☀️:");
            assertThat(message.content()).hasSize(2);
            assertThat(message.content().get(1).toolUse())
                    .hasValueSatisfying(t -> assertThat(t.name()).isEqualTo("get_weather"));

            // The request the SDK really sent, read by the adapter.
            RequestFacts facts =
                    adapter.readRequest(server.seen.get(0).asRequest("https://api.anthropic.com"), ESTIMATOR);
            assertThat(facts.operation()).isEqualTo("messages");
            assertThat(facts.model()).isEqualTo("claude-sonnet-4-5");
            assertThat(facts.streaming()).isTrue();
            assertThat(facts.maxOutputTokens()).isEqualTo(1024);
            assertThat(facts.apiKeyId()).isEqualTo(ApiKeyIds.of("sk-ant-test"));
            assertThat(facts.estimatedInputTokens())
                    .isEqualTo(ESTIMATOR.estimateInputTokens(
                            "claude-sonnet-4-5", "Be brief.".length() + "Weather in Paris?".length(), 2));

            Usage ours = feed(
                            adapter.usageParser(
                                    facts, Headers.of(Map.of("content-type", List.of("text/event-stream"))), ESTIMATOR),
                            sse)
                    .usage();
            assertThat(ours.reportedByProvider()).isTrue();
            assertThat(ours.inputTokens())
                    .isEqualTo(
                            sdk.inputTokens() + sdk.cacheCreationInputTokens().orElseThrow());
            assertThat(ours.cacheCreationInputTokens())
                    .isEqualTo(sdk.cacheCreationInputTokens().orElseThrow());
            assertThat(ours.cachedInputTokens())
                    .isEqualTo(sdk.cacheReadInputTokens().orElseThrow());
            assertThat(ours.outputTokens()).isEqualTo(sdk.outputTokens());
        }
    }

    @Test
    void jsonFixtureIsReadByTheSdkAndUsageAgrees() throws Exception {
        byte[] json = resource("/anthropic/message.json");
        try (LoopbackServer server =
                new LoopbackServer(200, Map.of("content-type", List.of("application/json")), json)) {
            AnthropicClient client = client(server);
            Message message = client.messages().create(PARAMS);
            client.close();
            Usage ours = feed(
                            adapter.usageParser(
                                    adapter.readRequest(
                                            server.seen.get(0).asRequest("https://api.anthropic.com"), ESTIMATOR),
                                    Headers.of(Map.of("content-type", List.of("application/json"))),
                                    ESTIMATOR),
                            json)
                    .usage();
            com.anthropic.models.messages.Usage sdk = message.usage();
            assertThat(ours.inputTokens())
                    .isEqualTo(
                            sdk.inputTokens() + sdk.cacheCreationInputTokens().orElseThrow());
            assertThat(ours.cachedInputTokens())
                    .isEqualTo(sdk.cacheReadInputTokens().orElseThrow());
            assertThat(ours.outputTokens()).isEqualTo(sdk.outputTokens());
        }
    }
}
