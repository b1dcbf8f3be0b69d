package dev.sluice.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.genai.Client;
import com.google.genai.ResponseStream;
import com.google.genai.types.GenerateContentConfig;
import com.google.genai.types.GenerateContentResponse;
import com.google.genai.types.HttpOptions;
import dev.sluice.simulator.protocol.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GeminiProfileTest {
    // Limits run on a fake clock so that a slow machine cannot refill a bucket mid-test.
    private final FakeClock clock = new FakeClock();
    private final Simulator sim = Simulator.builder()
            .clock(clock)
            .profile(Profile.GEMINI)
            .limit(Dimension.REQUESTS, 3, Duration.ofSeconds(1))
            .tokensPerMinute(1_000_000)
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

    private String url(String method) {
        return sim.baseUrl() + "/v1beta/models/gemini-2.0-flash:" + method;
    }

    @Test
    void sdkReadsContentAndUsageMetadata() {
        Client client = Client.builder()
                .apiKey("g-sdk")
                .httpOptions(HttpOptions.builder().baseUrl(sim.apiBaseUrl()).build())
                .build();
        GenerateContentResponse r = client.models.generateContent(
                "gemini-2.0-flash",
                "w".repeat(80),
                GenerateContentConfig.builder().maxOutputTokens(7).build());
        assertThat(r.text().split(" ")).hasSize(7);
        assertThat(r.usageMetadata().orElseThrow().promptTokenCount()).hasValue(20);
        assertThat(r.usageMetadata().orElseThrow().candidatesTokenCount()).hasValue(7);

        List<GenerateContentResponse> chunks = new ArrayList<>();
        try (ResponseStream<GenerateContentResponse> s =
                client.models.generateContentStream("gemini-2.0-flash", "hello", null)) {
            s.forEach(chunks::add);
        }
        assertThat(chunks).hasSize(64);
        assertThat(chunks.get(chunks.size() - 1).usageMetadata().orElseThrow().candidatesTokenCount())
                .hasValue(64);
    }

    @Test
    void sseChunksCarryUsageAndTheLastIsAuthoritative() {
        var r = Http.post(url("streamGenerateContent?alt=sse"), Bodies.gemini(40, 5), "x-goog-api-key", "g-s");
        assertThat(r.headers().firstValue("content-type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        String[] events = r.body().split("\r\n\r\n");
        assertThat(events).hasSize(5);
        JsonNode last = Json.parse(events[4].substring(6).getBytes(StandardCharsets.UTF_8));
        assertThat(last.get("usageMetadata").get("candidatesTokenCount").asInt())
                .isEqualTo(5);
        assertThat(last.get("usageMetadata").get("promptTokenCount").asInt()).isEqualTo(10);
        assertThat(last.get("candidates").get(0).get("finishReason").asText()).isEqualTo("MAX_TOKENS");
    }

    @Test
    void aRefusalCarriesQuotaFailureAndRetryInfoButNoHeaders() {
        for (int i = 0; i < 3; i++) {
            var ok = Http.post(url("generateContent"), Bodies.gemini(40, 5), "x-goog-api-key", "g-r");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().map().keySet()).noneMatch(h -> h.contains("ratelimit") || h.equals("retry-after"));
        }
        var r = Http.post(url("generateContent") + "?key=g-r", Bodies.gemini(40, 5));
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.headers().firstValue("retry-after")).isEmpty();
        JsonNode error = Json.parse(r.body().getBytes(StandardCharsets.UTF_8)).get("error");
        assertThat(error.get("code").asInt()).isEqualTo(429);
        assertThat(error.get("status").asText()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(error.get("message").asText()).containsPattern("Please retry in [0-9.]+s\\.$");
        JsonNode details = error.get("details");
        assertThat(details.get(0).get("@type").asText()).isEqualTo("type.googleapis.com/google.rpc.QuotaFailure");
        assertThat(details.get(0).get("violations").get(0).get("quotaId").asText())
                .isEqualTo("GenerateRequestsPerMinutePerProjectPerModel-FreeTier");
        JsonNode retry = details.get(2);
        assertThat(retry.get("@type").asText()).isEqualTo("type.googleapis.com/google.rpc.RetryInfo");
        assertThat(retry.get("retryDelay").asText()).isEqualTo("0.334s");
    }

    @Test
    void aDailyQuotaNamesPerDayAndOverloadIsUnavailable() {
        var daily = Http.post(
                url("generateContent"),
                Bodies.gemini(4, 5),
                "x-goog-api-key",
                "g-d",
                "x-sim-force",
                "insufficient_quota");
        assertThat(daily.body()).contains("GenerateRequestsPerDayPerProjectPerModel-FreeTier");
        var overloaded = Http.post(
                url("generateContent"), Bodies.gemini(4, 5), "x-goog-api-key", "g-d", "x-sim-force", "overload");
        assertThat(overloaded.statusCode()).isEqualTo(503);
        assertThat(overloaded.body()).contains("\"status\":\"UNAVAILABLE\"");
    }
}
