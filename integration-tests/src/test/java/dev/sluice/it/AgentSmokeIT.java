package dev.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.apps.OpenAiChatApp;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The agent attaches to a real openai-java service that calls {@code api.openai.com} (resolved to
 * the simulator on loopback through the JDK's hosts file) and, with no config at all, governs its
 * calls: Sluice's own {@code X-Sluice-Tenant} header is read and stripped before the request leaves.
 */
class AgentSmokeIT {

    @Test
    void anOpenAiServiceRunsGovernedWithNoConfig() throws Exception {
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(6_000)
                .tokensPerMinute(1_000_000)
                .tenantHeaders("X-Sluice-Tenant")
                .instant()
                .start()) {
            Path hosts = Files.createTempFile("sluice-hosts", "");
            Files.writeString(hosts, "127.0.0.1 api.openai.com\n");
            String baseUrl = "http://api.openai.com:" + sim.port() + "/v1";

            ForkedApp.Result without =
                    app(hosts, baseUrl).withAgent(false).run().assertOk();
            assertThat(without.summary().get("completed").asLong()).isEqualTo(10);
            assertThat(sim.ledger().exchanges())
                    .as("without the agent the header reaches the provider")
                    .extracting(Exchange::tenant)
                    .containsOnly("acme");
            sim.ledger().reset();

            ForkedApp.Result r =
                    app(hosts, baseUrl).withAgent((String) null).run().assertOk();
            JsonNode s = r.summary();
            assertThat(s.get("completed").asLong()).isEqualTo(10);
            assertThat(r.startLine()).contains("mode=enforce").contains("defaults");
            assertThat(sim.ledger().counts().admitted()).isEqualTo(10);
            assertThat(sim.ledger().exchanges())
                    .as("governed: Sluice's own header is stripped")
                    .extracting(Exchange::tenant)
                    .containsOnlyNulls();
        }
    }

    private static ForkedApp app(Path hosts, String baseUrl) {
        return ForkedApp.of(OpenAiChatApp.class)
                .systemProperty("jdk.net.hosts.file", hosts.toString())
                .args(baseUrl, 2, 5, "acme");
    }
}
