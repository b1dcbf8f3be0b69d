package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An OpenAI-compatible server (the simulator's OpenAI profile) at a configured URL, through the raw
 * JDK HttpClient. Its budget headers count over 10 s, which the provider entry's {@code options}
 * tell the adapter; Sluice learns the limits from them and paces under them.
 */
class OpenAiCompatibleIT {

    @Test
    void aConfiguredUrlIsPacedUnderHeadersReadOverTheWindowsItsOptionsName() throws Exception {
        int threads = 4;
        int calls = 8;
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .limit(Dimension.REQUESTS, 20, Duration.ofSeconds(10))
                .limit(Dimension.TOKENS, 200_000, Duration.ofSeconds(10))
                .firstByteLatency(Duration.ofMillis(5))
                .start()) {
            String base = "http://127.0.0.1:" + sim.port() + "/v1/";
            String config = ProviderRuns.file(
                    ".yaml",
                    "providers:",
                    "  - name: local-llm",
                    "    kind: openai-compatible",
                    "    match: {urls: [\"" + base + "\"]}",
                    "    options: {requestsWindow: 10s, tokensWindow: 10s}");
            ForkedApp.Result r = ProviderRuns.jdkHttp(
                            base + "chat/completions",
                            threads,
                            calls,
                            ProviderRuns.CHAT_BODY,
                            "Authorization=Bearer sk-local",
                            null)
                    .withAgent("config=" + config)
                    .run()
                    .assertOk();
            JsonNode s = r.summary();
            Counts c = sim.ledger().counts();
            System.out.printf("openai-compatible governed: %s%n  %s%n", c, s);
            assertThat(c.rejected()).as("provider 429s").isZero();
            assertThat(s.path("counters").path("status:200").asLong()).isEqualTo((long) threads * calls);
            // Read as per-minute budgets (no options), the 12 calls past the burst would take 36 s.
            assertThat(s.get("elapsedMillis").asLong()).isLessThan(20_000);
        }
    }
}
