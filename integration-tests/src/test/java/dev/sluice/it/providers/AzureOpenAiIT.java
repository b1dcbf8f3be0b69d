package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Azure OpenAI through the raw JDK HttpClient, with no config: recognised by its resource host and
 * deployment path, paced under what Sluice learns from {@code x-ratelimit-remaining-requests} (a
 * 10-second window of RPM/6).
 */
class AzureOpenAiIT {

    static final String HOST = "acme-eastus.openai.azure.com";

    @Test
    void noConfigPacesADeploymentUnderItsTenSecondWindow() throws Exception {
        int threads = 4;
        int calls = 8;
        try (Simulator sim = Simulator.builder()
                .profile(Profile.AZURE_OPENAI)
                .requestsPerMinute(120)
                .tokensPerMinute(200_000)
                .firstByteLatency(Duration.ofMillis(5))
                .start()) {
            String url = LoopbackHosts.url(
                    HOST, sim.port(), "/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21");
            ForkedApp.Result r = ProviderRuns.jdkHttp(
                            url, threads, calls, ProviderRuns.CHAT_BODY, "api-key=az-test-key", null)
                    .withAgent((String) null)
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .run()
                    .assertOk();
            JsonNode s = r.summary();
            Counts c = sim.ledger().counts();
            System.out.printf("azure governed: %s%n  %s%n", c, s);
            assertThat(r.startLine()).contains("config=defaults");
            // 20 per 10 s, burst 20: 32 calls without a 429 means the sim admitted 12 of them paced.
            assertThat(c.rejected()).as("provider 429s").isZero();
            assertThat(s.path("counters").path("status:200").asLong()).isEqualTo((long) threads * calls);
            assertThat(c.admitted()).isEqualTo((long) threads * calls);
        }
    }
}
