package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.simulator.protocol.Json;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AzureOpenAiProfileTest {
    // Limits run on a fake clock so that a slow machine cannot refill a bucket mid-test.
    private final FakeClock clock = new FakeClock();
    private final Simulator sim = Simulator.builder()
            .clock(clock)
            .profile(Profile.AZURE_OPENAI)
            .requestsPerMinute(18) // checked as 3 per 10 seconds
            .tokensPerMinute(10_000)
            .modelMaxOutputTokens(4096)
            .instant()
            .start();

    @BeforeEach
    void reset() {
        sim.reset();
    }

    @AfterAll
    void close() {
        sim.close();
    }

    private HttpResponse<String> chat(String key, String body) {
        return Http.post(
                sim.baseUrl() + "/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-01-preview",
                body,
                "api-key",
                key);
    }

    @Test
    void requestsAreCountedOverTenSecondWindowsOfRpmOverSix() {
        assertThat(sim.limits()).anySatisfy(l -> {
            assertThat(l.dimension()).isEqualTo(Dimension.REQUESTS);
            assertThat(l.capacity()).isEqualTo(3);
            assertThat(l.window()).isEqualTo(Duration.ofSeconds(10));
        });
        for (int i = 0; i < 3; i++) {
            assertThat(chat("k-r", Bodies.chat()).statusCode()).isEqualTo(200);
        }
        var r = chat("k-r", Bodies.chat());
        assertThat(r.statusCode()).isEqualTo(429);
        JsonNode error = Json.parse(r.body().getBytes(StandardCharsets.UTF_8)).get("error");
        assertThat(error.get("code").isTextual()).isTrue();
        assertThat(error.get("code").asText()).isEqualTo("429");
        assertThat(error.get("message").asText())
                .startsWith("Requests to the ChatCompletions_Create Operation under Azure OpenAI API version"
                        + " 2024-10-01-preview have exceeded call rate limit of your current AIServices S0"
                        + " pricing tier. Please retry after 4 seconds.");
        assertThat(r.headers().firstValue("retry-after")).hasValue("4");
        assertThat(Long.parseLong(r.headers().firstValue("retry-after-ms").orElseThrow()))
                .isEqualTo(3334L);
    }

    @Test
    void onlyRemainingHeadersAreSent() {
        var r = chat("k-h", Bodies.chat(400, 500, false, false));
        assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("2");
        // prompt (100) + max_tokens (500) reserved.
        assertThat(r.headers().firstValue("x-ratelimit-remaining-tokens")).hasValue("9400");
        assertThat(r.headers().firstValue("x-ratelimit-limit-requests")).isEmpty();
        assertThat(r.headers().firstValue("x-ratelimit-reset-requests")).isEmpty();
        JsonNode body = Json.parse(r.body().getBytes(StandardCharsets.UTF_8));
        assertThat(body.get("model").asText()).isEqualTo("gpt4o-prod");
    }

    @Test
    void withoutMaxTokensTheModelMaximumIsReserved() {
        var r = chat("k-m", Bodies.chat(400, null, false, false));
        assertThat(r.headers().firstValue("x-ratelimit-remaining-tokens"))
                .hasValue(String.valueOf(10_000 - 100 - 4096));
        var tooMany = chat("k-m", Bodies.chat(400, null, false, false));
        assertThat(tooMany.statusCode()).isEqualTo(200);
        assertThat(chat("k-m", Bodies.chat(400, null, false, false)).body()).contains("token rate limit");
    }

    @Test
    void theResponsesApiAnswersUnknownRemaining() {
        var r = Http.post(
                sim.baseUrl() + "/openai/responses?api-version=2025-03-01-preview",
                "{\"model\":\"gpt4o-prod\",\"input\":\"hi\"}",
                "api-key",
                "k-resp");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("-1");
        assertThat(r.headers().firstValue("x-ratelimit-remaining-tokens")).hasValue("-1");
        assertThat(r.body()).contains("\"input_tokens\":1");
    }

    @Test
    void onlyTokensConfiguredDerivesSixRpmPerThousandTpm() {
        var limits = Simulator.builder()
                .profile(Profile.AZURE_OPENAI)
                .tokensPerMinute(30_000)
                .resolvedLimits();
        assertThat(limits).anySatisfy(l -> {
            assertThat(l.dimension()).isEqualTo(Dimension.REQUESTS);
            assertThat(l.capacity()).isEqualTo(30); // 180 RPM over 10 s
            assertThat(l.window()).isEqualTo(Duration.ofSeconds(10));
        });
    }
}
