package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.Figures;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * google-genai 2.0.0, sync and streaming, against the simulator's Gemini profile under its public
 * host name (see {@link LoopbackHosts}). Gemini sends no rate-limit headers, so its quota is
 * configured (no {@code match}: the public host recognises it). What is asserted does not depend
 * on the SDK's own RetryInterceptor (retries inside one attempt, neutralised separately): how many
 * calls reach the provider and how few it refuses, and that every call completes.
 */
class GeminiIT {

    static final String HOST = "generativelanguage.googleapis.com";

    @Test
    void aConfiguredQuotaPacesSyncAndStreamingCalls() throws Exception {
        int threads = 4;
        int calls = 8;
        try (Simulator sim = Simulator.builder()
                .profile(Profile.GEMINI)
                .limit(Dimension.REQUESTS, 10, Duration.ofSeconds(2))
                .inputTokensPerMinute(1_000_000)
                .firstByteLatency(Duration.ofMillis(5))
                .latencyPerToken(Duration.ofMillis(1))
                .start()) {
            String config = ProviderRuns.file(
                    ".yaml",
                    "providers:",
                    "  - name: gemini",
                    "    kind: gemini",
                    "    limits:",
                    "      - {dimension: requests, capacity: 10, window: 2s}");
            ForkedApp.Result r = ForkedApp.of(GeminiApp.class)
                    .withAgent("config=" + config)
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .args(LoopbackHosts.url(HOST, sim.port(), "/"), threads, calls)
                    .run()
                    .assertOk();
            JsonNode s = r.summary();
            Counts c = sim.ledger().counts();
            System.out.printf("gemini governed: %s%n  %s%n", c, s);
            assertThat(s.get("completed").asLong()).isEqualTo((long) threads * calls);
            // As in VertexAiIT: the mirrored bucket's lead over the provider's after idle (refill rate x
            // the first calls' latency) is the only room for a 429; measured 0 to 2 per run.
            assertThat(c.rejected()).as("provider 429s").isLessThanOrEqualTo(5);
            assertThat(s.path("counters").path("streams.complete").asLong()).isEqualTo(16);
            assertThat(c.admitted()).isEqualTo((long) threads * calls);
        }
    }

    /**
     * No config: Gemini's answers carry no rate-limit headers, so Sluice knows its limit only from
     * its 429s, and paces by them (additive increase, multiplicative decrease). A hidden limit of
     * 6 calls a second (5 at once), 6 threads of 20 calls, with the agent: at most 10 % of its
     * attempts refused (asserted in {@link #hiddenQuota}). That bound is absolute: the same load
     * without the agent meets far more (72 of 192 attempts refused, 37 %, on 2026-12-01), so the
     * run without the agent, and the comparison with it (at most a quarter of its 429s), only run
     * with {@code -Dsluice.figures=true} ({@link Figures}).
     */
    @Test
    void aHiddenQuotaIsPacedFromItsRefusalsAlone() throws Exception {
        long with = hiddenQuota(true);
        if (Figures.enabled()) {
            long without = hiddenQuota(false);
            assertThat(with)
                    .as("provider 429s with the agent (%d without)", without)
                    .isLessThanOrEqualTo(without / 4);
        }
    }

    private static long hiddenQuota(boolean agent) throws Exception {
        int threads = 6;
        int calls = 20;
        try (Simulator sim = Simulator.builder()
                .profile(Profile.GEMINI)
                .limit(dev.sluice.simulator.Limit.perMinute(Dimension.REQUESTS, 360)
                        .burst(5))
                .inputTokensPerMinute(1_000_000)
                .firstByteLatency(Duration.ofMillis(20))
                .latencyPerToken(Duration.ofMillis(2))
                .start()) {
            ForkedApp app = ForkedApp.of(GeminiApp.class)
                    .timeout(Duration.ofSeconds(150))
                    .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                    .args(LoopbackHosts.url(HOST, sim.port(), "/"), threads, calls);
            if (agent) {
                app.withAgent(null);
            }
            ForkedApp.Result r = app.run().assertOk();
            JsonNode s = r.summary();
            Counts c = sim.ledger().counts();
            System.out.printf("gemini, hidden limit, %s the agent: %s%n  %s%n", agent ? "with" : "without", c, s);
            if (agent) {
                assertThat(s.get("completed").asLong()).isEqualTo((long) threads * calls);
                assertThat(c.admitted()).isEqualTo((long) threads * calls);
                assertThat(100.0 * c.rejected() / (c.admitted() + c.rejected()))
                        .as("provider 429s, %% of attempts: %s", c)
                        .isLessThanOrEqualTo(10.0);
            }
            return c.rejected();
        }
    }
}
