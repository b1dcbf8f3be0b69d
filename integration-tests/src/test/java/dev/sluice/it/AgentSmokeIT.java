package dev.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.apps.OpenAiChatApp;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import org.junit.jupiter.api.Test;

/** The agent attaches to a real openai-java service and governs its calls, end to end. */
class AgentSmokeIT {

    @Test
    void anOpenAiServiceRunsGovernedWithNoConfig() throws Exception {
        try (Simulator sim = Simulator.builder().profile(Profile.OPENAI).requestsPerMinute(6_000)
                .tokensPerMinute(1_000_000).instant().start()) {
            ForkedApp.Result r = ForkedApp.of(OpenAiChatApp.class).withAgent((String) null)
                    .args(sim.apiBaseUrl(), 2, 5).run().assertOk();
            JsonNode s = r.summary();
            assertThat(s.get("completed").asLong()).isEqualTo(10);
            assertThat(r.startLine()).contains("mode=enforce").contains("defaults");
            assertThat(sim.ledger().counts().admitted()).isEqualTo(10);
        }
    }
}
