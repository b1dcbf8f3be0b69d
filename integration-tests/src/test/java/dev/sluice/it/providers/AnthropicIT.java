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
 * With no config, anthropic-java traffic (sync and streaming) is paced under the limits
 * Sluice learns from {@code anthropic-ratelimit-*} headers, and stops meeting 429s.
 */
class AnthropicIT {

    static final String HOST = "api.anthropic.com";
    static final int THREADS = 6;
    static final int CALLS = 13;
    static final int RPM = 60;

    private static Simulator simulator() {
        return Simulator.builder()
                .profile(Profile.ANTHROPIC)
                .limit(Dimension.REQUESTS, RPM, Duration.ofMinutes(1))
                .inputTokensPerMinute(400_000)
                .outputTokensPerMinute(100_000)
                .firstByteLatency(Duration.ofMillis(10))
                .latencyPerToken(Duration.ofMillis(1))
                .start();
    }

    private static ForkedApp.Result run(Simulator sim, boolean agent) throws Exception {
        return ForkedApp.of(AnthropicApp.class)
                .withAgent(agent)
                .systemProperty(LoopbackHosts.PROPERTY, LoopbackHosts.file(HOST))
                .args(LoopbackHosts.url(HOST, sim.port(), ""), THREADS, CALLS, "mixed")
                .run()
                .assertOk();
    }

    /**
     * The same load without the agent (42 of 110 attempts refused on 2026-12-01) is the test's
     * premise and a figure, not Sluice's behaviour: it runs with {@code -Dsluice.figures=true} only
     * ({@link Figures}).
     */
    @Test
    void noConfigPacesSyncAndStreamingCallsUnderTheLearnedLimits() throws Exception {
        Counts baseline = null;
        JsonNode baselineSummary = null;
        if (Figures.enabled()) {
            try (Simulator sim = simulator()) {
                baselineSummary = run(sim, false).summary();
                baseline = sim.ledger().counts();
            }
        }
        Counts governed;
        JsonNode s;
        ForkedApp.Result r;
        try (Simulator sim = simulator()) {
            r = run(sim, true);
            s = r.summary();
            governed = sim.ledger().counts();
        }
        System.out.printf(
                "anthropic baseline: %s%n  %s%nanthropic governed: %s%n  %s%n", baseline, baselineSummary, governed, s);
        assertThat(r.startLine()).contains("config=defaults");
        long calls = (long) THREADS * CALLS;
        assertThat(s.get("calls").asLong()).isEqualTo(calls);
        assertThat(governed.rejected())
                .as("provider 429s with the agent")
                .isLessThanOrEqualTo(governed.arrivals() / 100);
        assertThat(s.path("counters").path("rejected:provider").asLong()).isZero();
        long localRejections = s.get("failures").path("RateLimitException").asLong();
        assertThat(s.get("completed").asLong() + localRejections).isEqualTo(calls);
        assertThat(s.path("counters").path("streams.broken").asLong()).isZero();
        if (baseline != null) {
            assertThat(baseline.rejected())
                    .as("the baseline meets 429s, or the test proves nothing")
                    .isGreaterThan(10);
        }
    }
}
