package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import dev.sluice.simulator.protocol.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OpenAiProfileTest {
    // Limits run on a fake clock so that a slow machine cannot refill a bucket mid-test.
    private final FakeClock clock = new FakeClock();
    private final Simulator sim = Simulator.builder()
            .clock(clock)
            .profile(Profile.OPENAI)
            .limit(Dimension.REQUESTS, 5, Duration.ofSeconds(1))
            .limit(Dimension.TOKENS, 2_000, Duration.ofSeconds(1))
            .instant()
            .start();
    private final OpenAIClient client = OpenAIOkHttpClient.builder()
            .baseUrl(sim.apiBaseUrl())
            .apiKey("sk-sdk")
            .build();

    @BeforeEach
    void reset() {
        sim.reset();
    }

    @AfterAll
    void close() {
        client.close();
        sim.close();
    }

    private HttpResponse<String> chat(String key, String body, String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = "Authorization";
        all[1] = "Bearer " + key;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return Http.post(sim.apiBaseUrl() + "/chat/completions", body, all);
    }

    @Test
    void sdkReadsCompletionAndUsage() {
        ChatCompletion c = client.chat()
                .completions()
                .create(ChatCompletionCreateParams.builder()
                        .model("gpt-4o-mini")
                        .addUserMessage("x".repeat(400))
                        .maxCompletionTokens(12)
                        .build());
        assertThat(c.choices().get(0).message().content())
                .hasValueSatisfying(t -> assertThat(t.split(" ")).hasSize(12));
        assertThat(c.choices().get(0).finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.LENGTH);
        assertThat(c.usage()).hasValueSatisfying(u -> {
            assertThat(u.promptTokens()).isEqualTo(100);
            assertThat(u.completionTokens()).isEqualTo(12);
            assertThat(u.totalTokens()).isEqualTo(112);
        });
    }

    @Test
    void sdkStreamsChunksWithUsageOnlyWhenAskedFor() {
        ChatCompletionCreateParams.Builder params = ChatCompletionCreateParams.builder()
                .model("gpt-4o-mini")
                .addUserMessage("hello")
                .maxCompletionTokens(8);
        List<ChatCompletionChunk> withUsage;
        try (StreamResponse<ChatCompletionChunk> s = client.chat()
                .completions()
                .createStreaming(params.streamOptions(ChatCompletionStreamOptions.builder()
                                .includeUsage(true)
                                .build())
                        .build())) {
            withUsage = s.stream().collect(Collectors.toList());
        }
        ChatCompletionChunk last = withUsage.get(withUsage.size() - 1);
        assertThat(last.choices()).isEmpty();
        assertThat(last.usage())
                .hasValueSatisfying(u -> assertThat(u.completionTokens()).isEqualTo(8));
        String text = withUsage.stream()
                .flatMap(c -> c.choices().stream())
                .map(ch -> ch.delta().content().orElse(""))
                .collect(Collectors.joining());
        assertThat(text.split(" ")).hasSize(8);

        var raw = Http.post(
                sim.apiBaseUrl() + "/chat/completions",
                Bodies.chat(20, 3, true, false),
                "Authorization",
                "Bearer sk-raw");
        assertThat(raw.body()).doesNotContain("\"usage\"").endsWith("data: [DONE]\n\n");
    }

    @Test
    void sdkReadsResponsesApiWholeAndStreamed() {
        Response r = client.responses()
                .create(ResponseCreateParams.builder()
                        .model("gpt-4o-mini")
                        .input("y".repeat(40))
                        .build());
        assertThat(r.usage()).hasValueSatisfying(u -> {
            assertThat(u.inputTokens()).isEqualTo(10);
            assertThat(u.outputTokens()).isEqualTo(64);
        });
        try (StreamResponse<ResponseStreamEvent> s = client.responses()
                .createStreaming(ResponseCreateParams.builder()
                        .model("gpt-4o-mini")
                        .input("hi")
                        .maxOutputTokens(16)
                        .build())) {
            List<ResponseStreamEvent> events = s.stream().collect(Collectors.toList());
            assertThat(events.get(0).isCreated()).isTrue();
            assertThat(events.stream().filter(ResponseStreamEvent::isOutputTextDelta))
                    .hasSize(16);
            ResponseStreamEvent done = events.get(events.size() - 1);
            assertThat(done.completed())
                    .hasValueSatisfying(
                            c -> assertThat(c.response().usage().get().outputTokens())
                                    .isEqualTo(16));
        }
    }

    @Test
    void everyAnswerCarriesRateLimitHeadersWithGoDurations() {
        var r = chat("sk-h", Bodies.chat(400, 300, false, false));
        assertThat(r.statusCode()).isEqualTo(200);
        var h = r.headers();
        assertThat(h.firstValue("x-ratelimit-limit-requests")).hasValue("5");
        assertThat(h.firstValue("x-ratelimit-remaining-requests")).hasValue("4");
        assertThat(h.firstValue("x-ratelimit-reset-requests")).hasValue("200ms");
        assertThat(h.firstValue("x-ratelimit-limit-tokens")).hasValue("2000");
        // Admission charges max(max_tokens, prompt) = max(300, 100).
        assertThat(h.firstValue("x-ratelimit-remaining-tokens")).hasValue("1700");
        assertThat(h.firstValue("x-ratelimit-reset-tokens")).hasValue("150ms");
        assertThat(h.firstValue("x-request-id")).isPresent();
    }

    @Test
    void aRefusalIsTheDocumentedBodyWithRetryHints() {
        for (int i = 0; i < 5; i++) {
            assertThat(chat("sk-r", Bodies.chat()).statusCode()).isEqualTo(200);
        }
        var r = chat("sk-r", Bodies.chat());
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode error = Json.parse(r.body().getBytes(StandardCharsets.UTF_8)).get("error");
        assertThat(error.get("type").asText()).isEqualTo("requests");
        assertThat(error.get("code").asText()).isEqualTo("rate_limit_exceeded");
        assertThat(error.get("param").isNull()).isTrue();
        assertThat(error.get("message").asText())
                .matches("Rate limit reached for gpt-4o-mini in organization org-sim on requests per second"
                        + " \\(RPS\\): Limit 5, Used 5, Requested 1\\. Please try again in 200ms\\. Visit .*");
        assertThat(r.headers().firstValue("retry-after")).hasValue("1");
        assertThat(r.headers().firstValue("retry-after-ms")).hasValue("200");
        assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("0");
        // Another key has its own buckets.
        assertThat(chat("sk-other", Bodies.chat()).statusCode()).isEqualTo(200);
        assertThat(sim.ledger().forApiKey("sk-r").counts().rejected()).isEqualTo(1);
    }

    @Test
    void aRequestLargerThanTheTokenLimitIsTooLargeNotRateLimited() {
        var r = chat("sk-big", Bodies.chat(4, 3000, false, false));
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.body()).contains("Request too large for gpt-4o-mini", "Limit 2000, Requested 3000");
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
    }

    @Test
    void refusedRequestsStillCountAgainstTheRequestLimit() {
        for (int i = 0; i < 5; i++) {
            chat("sk-f", Bodies.chat());
        }
        // 5 per second refill one every 200 ms; a caller retrying every 150 ms spends each refill on
        // a refusal, so it never gets through. Without the charge the second retry would pass.
        for (int i = 0; i < 10; i++) {
            clock.advance(Duration.ofMillis(150));
            assertThat(chat("sk-f", Bodies.chat()).statusCode()).isEqualTo(429);
        }
        clock.advance(Duration.ofMillis(200));
        assertThat(chat("sk-f", Bodies.chat()).statusCode()).isEqualTo(200);
    }

    @Test
    void sdkRaisesRateLimitExceptionAfterItsOwnRetries() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                .model("gpt-4o-mini")
                .addUserMessage("hi")
                .putAdditionalHeader("x-sim-force", "rate_limited")
                .putAdditionalHeader("x-sim-call-id", "call-429")
                .build();
        assertThatThrownBy(() -> client.chat().completions().create(params)).isInstanceOf(RateLimitException.class);
        // openai-java retries twice by default, honouring retry-after: three attempts of one call.
        assertThat(sim.ledger().attemptsPerCall()).containsEntry("call-429", 3);
    }

    @Test
    void insufficientQuotaIsA429OfItsOwnType() {
        var r = chat("sk-q", Bodies.chat(), "x-sim-force", "insufficient_quota");
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode error = Json.parse(r.body().getBytes(StandardCharsets.UTF_8)).get("error");
        assertThat(error.get("type").asText()).isEqualTo("insufficient_quota");
        assertThat(error.get("code").asText()).isEqualTo("insufficient_quota");
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
    }
}
