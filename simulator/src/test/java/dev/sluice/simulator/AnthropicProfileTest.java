package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.AnthropicException;
import com.anthropic.errors.RateLimitException;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.simulator.protocol.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnthropicProfileTest {
    // Limits run on a fake clock so that a slow machine cannot refill a bucket mid-test.
    private final FakeClock clock = new FakeClock();
    private final Simulator sim = Simulator.builder()
            .clock(clock)
            .profile(Profile.ANTHROPIC)
            .limit(Dimension.REQUESTS, 5, Duration.ofSeconds(1))
            .limit(Dimension.INPUT_TOKENS, 10_000, Duration.ofSeconds(1))
            .limit(Dimension.OUTPUT_TOKENS, 4_000, Duration.ofSeconds(10))
            .instant()
            .start();
    private final AnthropicClient client = AnthropicOkHttpClient.builder()
            .baseUrl(sim.apiBaseUrl())
            .apiKey("sk-ant-sdk")
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

    private HttpResponse<String> messages(String key, String body, String... headers) {
        String[] all = new String[headers.length + 4];
        all[0] = "x-api-key";
        all[1] = key;
        all[2] = "anthropic-version";
        all[3] = "2023-06-01";
        System.arraycopy(headers, 0, all, 4, headers.length);
        return Http.post(sim.baseUrl() + "/v1/messages", body, all);
    }

    @Test
    void sdkReadsMessageAndUsage() {
        Message m = client.messages()
                .create(MessageCreateParams.builder()
                        .model("claude-sonnet-4-5")
                        .maxTokens(20)
                        .addUserMessage("z".repeat(800))
                        .build());
        assertThat(m.usage().inputTokens()).isEqualTo(200);
        assertThat(m.usage().outputTokens()).isEqualTo(20);
        assertThat(m.stopReason())
                .hasValueSatisfying(r -> assertThat(r.asString()).isEqualTo("max_tokens"));
        assertThat(m.content().get(0).text())
                .hasValueSatisfying(t -> assertThat(t.text().split(" ")).hasSize(20));
    }

    @Test
    void sdkStreamsEventsWithCumulativeUsage() {
        List<RawMessageStreamEvent> events = new ArrayList<>();
        try (StreamResponse<RawMessageStreamEvent> s = client.messages()
                .createStreaming(MessageCreateParams.builder()
                        .model("claude-sonnet-4-5")
                        .maxTokens(100)
                        .addUserMessage("hello")
                        .build())) {
            s.stream().forEach(events::add);
        }
        assertThat(events.get(0).messageStart())
                .hasValueSatisfying(start ->
                        assertThat(start.message().usage().inputTokens()).isEqualTo(2));
        assertThat(events.stream().filter(e -> e.contentBlockDelta().isPresent()))
                .hasSize(64);
        assertThat(events.stream()
                        .filter(e -> e.messageDelta().isPresent())
                        .findFirst()
                        .orElseThrow()
                        .messageDelta()
                        .get()
                        .usage()
                        .outputTokens())
                .isEqualTo(64);
        assertThat(events.get(events.size() - 1).isMessageStop()).isTrue();
    }

    @Test
    void headersCarryRfc3339ResetsAndTokensRoundedToTheThousand() {
        var r = messages("sk-h", Bodies.anthropic(4000, 1000, false));
        assertThat(r.statusCode()).isEqualTo(200);
        var h = r.headers();
        assertThat(h.firstValue("anthropic-ratelimit-requests-limit")).hasValue("5");
        assertThat(h.firstValue("anthropic-ratelimit-requests-remaining")).hasValue("4");
        // 10,000 - 1,000 input tokens; output reserved 1,000 of 4,000 (true-up comes at the end).
        assertThat(h.firstValue("anthropic-ratelimit-input-tokens-remaining")).hasValue("9000");
        assertThat(h.firstValue("anthropic-ratelimit-output-tokens-remaining")).hasValue("3000");
        assertThat(h.firstValue("anthropic-ratelimit-tokens-remaining")).hasValue("3000");
        for (String name : List.of("requests", "tokens", "input-tokens", "output-tokens")) {
            String reset =
                    h.firstValue("anthropic-ratelimit-" + name + "-reset").orElseThrow();
            assertThat(reset).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
            assertThat(OffsetDateTime.parse(reset).toInstant()).isAfter(clock.instant());
        }
        assertThat(h.firstValue("request-id"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("req_"));
    }

    @Test
    void outputReservedFromMaxTokensIsTruedUpWhenTheAnswerEnds() {
        messages("sk-t", Bodies.anthropic(40, 3000, false));
        // The true-up happens when the server has finished the answer, a moment after the client
        // has it all.
        await().atMost(Duration.ofSeconds(5)).until(() -> sim.ledger().inFlight() == 0);
        var r = messages("sk-t", Bodies.anthropic(40, 100, false));
        // 4,000 - 64 used - 100 reserved, rounded to the thousand.
        assertThat(r.headers().firstValue("anthropic-ratelimit-output-tokens-remaining"))
                .hasValue("4000");
        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(sim.limitStatus("sk-t", "org-sim", "claude-sonnet-4-5"))
                        .filteredOn(s -> s.limit().dimension() == Dimension.OUTPUT_TOKENS)
                        .singleElement()
                        .satisfies(s -> assertThat(s.remaining()).isEqualTo(4000 - 64 - 64)));
        // Without the true-up only 900 would be left.
        assertThat(messages("sk-t", Bodies.anthropic(40, 3500, false)).statusCode())
                .isEqualTo(200);
    }

    @Test
    void aRefusalIsARateLimitErrorWithRetryAfter() {
        var big = messages("sk-r", Bodies.anthropic(36_000, 10, false));
        assertThat(big.statusCode()).isEqualTo(200);
        var r = messages("sk-r", Bodies.anthropic(8_000, 10, false));
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode body = Json.parse(r.body().getBytes(StandardCharsets.UTF_8));
        assertThat(body.get("type").asText()).isEqualTo("error");
        assertThat(body.get("error").get("type").asText()).isEqualTo("rate_limit_error");
        assertThat(body.get("error").get("message").asText())
                .startsWith("This request would exceed the rate limit for your organization (")
                .contains("of 10,000 input tokens per second.");
        assertThat(body.get("request_id").asText()).startsWith("req_");
        assertThat(r.headers().firstValue("retry-after")).hasValue("1");
        assertThat(r.headers().firstValue("anthropic-ratelimit-input-tokens-remaining"))
                .hasValue("1000");
    }

    @Test
    void cacheReadsDoNotCountAgainstInputTokens() {
        String system = "s".repeat(32_000); // 8,000 tokens, cacheable
        String body = "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":10,\"system\":[{\"type\":\"text\","
                + "\"text\":\"" + system + "\",\"cache_control\":{\"type\":\"ephemeral\"}}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
        var first = Json.parse(messages("sk-c", body).body().getBytes(StandardCharsets.UTF_8))
                .get("usage");
        assertThat(first.get("cache_creation_input_tokens").asInt()).isEqualTo(8000);
        assertThat(first.get("input_tokens").asInt()).isEqualTo(2);
        // The bucket holds 10,000: a second 8,000-token creation would not fit, a cache read does.
        var second = messages("sk-c", body);
        assertThat(second.statusCode()).isEqualTo(200);
        var usage = Json.parse(second.body().getBytes(StandardCharsets.UTF_8)).get("usage");
        assertThat(usage.get("cache_read_input_tokens").asInt()).isEqualTo(8000);
        assertThat(usage.get("cache_creation_input_tokens").asInt()).isZero();
    }

    @Test
    void overloadIs529AndMidStreamOverloadIsAnErrorEvent() {
        var r = messages("sk-o", Bodies.anthropic(40, 10, false), "x-sim-force", "overload");
        assertThat(r.statusCode()).isEqualTo(529);
        assertThat(r.body()).contains("\"type\":\"overloaded_error\"", "\"message\":\"Overloaded\"");

        var raw = Http.post(
                sim.baseUrl() + "/v1/messages",
                Bodies.anthropic(40, 10, true),
                "x-api-key",
                "sk-o",
                "x-sim-force",
                "mid_stream_error");
        assertThat(raw.body())
                .contains("event: error\ndata: {\"type\":\"error\",\"error\":"
                        + "{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")
                .doesNotContain("message_stop");

        sim.faults().next(dev.sluice.simulator.fault.FaultKind.MID_STREAM_ERROR, 1);
        assertThatThrownBy(() -> {
                    try (StreamResponse<RawMessageStreamEvent> s = client.messages()
                            .createStreaming(MessageCreateParams.builder()
                                    .model("claude-sonnet-4-5")
                                    .maxTokens(10)
                                    .addUserMessage("hello")
                                    .build())) {
                        s.stream().forEach(e -> {});
                    }
                })
                .isInstanceOf(AnthropicException.class)
                .hasMessageContaining("Overloaded");
    }

    @Test
    void spendLimitIsA429WithoutRetryAfter() {
        var r = messages("sk-s", Bodies.anthropic(40, 10, false), "x-sim-force", "insufficient_quota");
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.body()).contains("\"error_code\":\"enforced_spend_limit_reached\"");
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
    }

    @Test
    void sdkRaisesRateLimitExceptionOnA429() {
        sim.faults().next(dev.sluice.simulator.fault.FaultKind.RATE_LIMITED, 3);
        assertThatThrownBy(() -> client.messages()
                        .create(MessageCreateParams.builder()
                                .model("claude-sonnet-4-5")
                                .maxTokens(10)
                                .addUserMessage("hi")
                                .putAdditionalHeader("x-sim-call-id", "c1")
                                .build()))
                .isInstanceOf(RateLimitException.class);
        assertThat(sim.ledger().attemptsPerCall()).containsEntry("c1", 3);
    }
}
