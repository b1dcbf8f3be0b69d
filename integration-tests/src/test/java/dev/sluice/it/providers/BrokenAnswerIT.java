package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import org.junit.jupiter.api.Test;

/**
 * A 200 whose body breaks half way while the JDK client reads it whole ({@code ofString}, sync and
 * async): the provider did and billed the work, so the call must fail as it does without Sluice,
 * after exactly one attempt. Sending the POST again would pay for the answer twice.
 */
class BrokenAnswerIT {

    private static final int THREADS = 2;
    private static final int CALLS = 3;

    @Test
    void aSuccessCutHalfWayIsSentOnceWithAndWithoutTheAgent() throws Exception {
        long without = attempts(false);
        long with = attempts(true);
        System.out.printf(
                "broken 200 bodies: %d attempts without the agent, %d with, for %d calls%n",
                without, with, THREADS * CALLS);
        assertThat(without).isEqualTo(THREADS * CALLS);
        assertThat(with).isEqualTo(THREADS * CALLS);
    }

    private static long attempts(boolean agent) throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .instant()
                .requestsPerMinute(1_000_000)
                .tokensPerMinute(100_000_000)
                .start()) {
            String base = sim.baseUrl() + "/v1/";
            ForkedApp app = ProviderRuns.jdkHttp(
                    base + "chat/completions",
                    THREADS,
                    CALLS,
                    ProviderRuns.CHAT_BODY,
                    "Authorization=Bearer sk-test;x-sim-force=truncated_stream",
                    null);
            if (agent) {
                app.withAgent("config="
                        + ProviderRuns.file(
                                ".yaml",
                                "providers:",
                                "  - name: sim",
                                "    kind: openai",
                                "    match: {urls: [\"" + base + "\"]}"));
            }
            JsonNode s = app.run().assertOk().summary();
            assertThat(s.path("completed").asLong()).as("%s", s).isZero();
            return sim.ledger().counts().arrivals();
        }
    }
}
