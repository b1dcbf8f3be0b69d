package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Spring's {@code SimpleClientHttpRequestFactory} ({@code spring.http.client.factory=simple}, or
 * an application that builds its RestClient on it): {@code HttpURLConnection}, which Sluice does
 * not govern. Its calls work as before, and the operator is told they bypass the governor.
 */
class SpringAi1HttpUrlConnectionIT {

    @Test
    void callsThroughHttpUrlConnectionAreDetectedAsUngoverned() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = SpringApp.springAi1()
                    .variant(SpringApp.Variant.JDK_CLIENT)
                    .agent(true, null)
                    .systemProperty("jdk.net.hosts.file", Provider.hostsFile())
                    .property("spring.ai.openai.base-url", p.baseUrl())
                    .property("spring.ai.openai.api-key", "sk-spring-1")
                    .property("spring.http.client.factory", "simple")
                    .property("app.sync-calls", 8)
                    .property("app.threads", 2)
                    .run();
            System.out.printf("HttpURLConnection, with agent: %s%n", r.summary);
            assertThat(r.completed())
                    .as("the calls work as without Sluice; %s", r.failures())
                    .isEqualTo(8);
            assertThat(r.sluice("Admitted"))
                    .as("none went through the governor")
                    .isZero();
            UngovernedClients.assertDetected(r, "HttpURLConnection");
        }
    }
}
