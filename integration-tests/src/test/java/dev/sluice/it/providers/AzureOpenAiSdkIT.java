package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * azure-ai-openai 1.0.0-beta.16 (azure-core 1.55) on azure-core's JDK HttpClient against the
 * simulator's Azure OpenAI profile under a resource's host name. azure-core's {@code RetryPolicy}
 * retries a 429 three times; the simulator counts attempts per logical call by the
 * {@code x-ms-client-request-id} its {@code RequestIdPolicy} sets once per call, before the retry
 * policy. Every attempt is refused (forced {@code rate_limited}, "retry after 1 second").
 */
class AzureOpenAiSdkIT {

    static final String HOST = "acme-eastus.openai.azure.com";

    @Test
    void azureCoresRetryPolicyStandsAsideForWhatSluiceDecided() throws Exception {
        int threads = 3;
        int calls = 1;
        JsonNode with;
        int withAttempts;
        try (Simulator sim = sim()) {
            with = run(sim, true, threads, calls);
            withAttempts = maxAttempts(sim);
            System.out.printf(
                    "azure-ai-openai, every attempt refused, with the agent (retry.maxAttempts=2):"
                            + " max attempts per call %d%n  %s%n",
                    withAttempts, with);
        }
        int withoutAttempts;
        try (Simulator sim = sim()) {
            JsonNode without = run(sim, false, threads, calls);
            withoutAttempts = maxAttempts(sim);
            System.out.printf(
                    "azure-ai-openai, every attempt refused, without the agent: max attempts per call %d%n  %s%n",
                    withoutAttempts, without);
        }
        JsonNode counters = with.path("counters");
        assertThat(counters.path("status:429:sluice").asLong())
                .as("the provider's 429, handed back after Sluice's own attempts with its decision\n%s", with)
                .isEqualTo((long) threads * calls);
        assertThat(withAttempts)
                .as("attempts per logical call with the agent: Sluice's retry.maxAttempts")
                .isEqualTo(2);
        assertThat(counters.path("layer:azure-core-retry-policy:declined").asLong())
                .as("azure-core's retries declined\n%s", with)
                .isEqualTo((long) threads * calls);
        assertThat(withoutAttempts)
                .as("azure-core's own retries without the agent: 1 + 3")
                .isEqualTo(4);
    }

    private static Simulator sim() {
        return Simulator.builder()
                .profile(Profile.AZURE_OPENAI)
                .callIdHeader("x-ms-client-request-id")
                .requestsPerMinute(6_000)
                .tokensPerMinute(1_000_000)
                .start();
    }

    private static JsonNode run(Simulator sim, boolean agent, int threads, int calls) throws Exception {
        ForkedApp app = ForkedApp.of(AzureOpenAiSdkApp.class)
                .timeout(Duration.ofSeconds(90))
                .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                .args(LoopbackHosts.url(HOST, sim.port(), ""), threads, calls, "rate_limited");
        if (agent) {
            app.withAgent("retry.maxAttempts=2");
        }
        return app.run().assertOk().summary();
    }

    private static int maxAttempts(Simulator sim) {
        Map<String, Integer> perCall = sim.ledger().attemptsPerCall();
        return perCall.isEmpty() ? 0 : Collections.max(perCall.values());
    }
}
