package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Scope;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Counts;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The fixed-window gateway of providers.md (the simulator's GATEWAY profile, windows shortened to
 * 2 s so the test is quick): per-key and per-organization fixed windows and per-key concurrency,
 * no rate-limit headers. Its documented limits are configured, mirrored exactly; two API keys share
 * the organization's window. Raw JDK HttpClient.
 */
class FixedWindowGatewayIT {

    static final int THREADS = 4;
    static final int CALLS = 8;

    private static Simulator gateway() {
        return Simulator.builder()
                .profile(Profile.GATEWAY)
                .limit(Limit.of(Dimension.REQUESTS, 6, Duration.ofSeconds(2))
                        .fixedWindow()
                        .scope(Scope.API_KEY)
                        .named("key_chat"))
                .limit(Limit.of(Dimension.REQUESTS, 9, Duration.ofSeconds(2))
                        .fixedWindow()
                        .scope(Scope.ORGANIZATION)
                        .named("org_chat"))
                .limit(Limit.concurrency(8).scope(Scope.API_KEY).named("key_concurrency"))
                .firstByteLatency(Duration.ofMillis(5))
                .start();
    }

    private static ForkedApp app(Simulator sim) {
        return ProviderRuns.jdkHttp(
                "http://127.0.0.1:" + sim.port() + "/v1/chat/completions",
                THREADS,
                CALLS,
                ProviderRuns.CHAT_BODY,
                "Authorization=Bearer gw-key-{t}",
                "budget_exceeded,no_endpoint_for_policy");
    }

    @Test
    void configuredWindowsMeetNo429AndPolicyRefusalsAreNotRetried() throws Exception {
        Counts baseline;
        try (Simulator sim = gateway()) {
            app(sim).run().assertOk();
            baseline = sim.ledger().counts();
        }
        try (Simulator sim = gateway()) {
            String base = "http://127.0.0.1:" + sim.port() + "/v1/";
            String config = ProviderRuns.file(
                    ".yaml",
                    "providers:",
                    "  - name: llm-gateway",
                    "    kind: fixed-window-gateway",
                    "    match: {urls: [\"" + base + "\"]}",
                    "    learnFromHeaders: false",
                    "    limits:",
                    "      - {dimension: requests, capacity: 6, window: 2s, algorithm: fixed_window, level: api_key}",
                    "      - {dimension: requests, capacity: 9, window: 2s, algorithm: fixed_window}",
                    "      - {dimension: concurrency, capacity: 8, level: api_key}");
            ForkedApp.Result r = app(sim).withAgent("config=" + config).run().assertOk();
            JsonNode s = r.summary();
            Counts c = sim.ledger().counts();
            System.out.printf("gateway baseline: %s%ngateway governed: %s%n  %s%n", baseline, c, s);
            assertThat(baseline.rejected())
                    .as("the baseline meets 429s, or the test proves nothing")
                    .isPositive();
            assertThat(c.rejected()).as("provider 429s").isZero();
            assertThat(s.path("counters").path("status:200").asLong()).isEqualTo((long) THREADS * CALLS);
            assertThat(s.path("counters").path("after:budget_exceeded:402").asLong())
                    .isEqualTo(1);
            assertThat(s.path("counters")
                            .path("after:no_endpoint_for_policy:409")
                            .asLong())
                    .isEqualTo(1);
            assertThat(sim.ledger().attemptsPerCall())
                    .containsEntry("after-budget_exceeded", 1)
                    .containsEntry("after-no_endpoint_for_policy", 1);
        }
    }
}
