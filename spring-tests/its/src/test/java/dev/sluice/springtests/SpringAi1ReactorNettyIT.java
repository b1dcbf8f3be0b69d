package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Spring AI 1.1 with {@code reactor-netty-http} on the class path: Boot's RestClient and WebClient
 * both pick Reactor Netty (on Linux over its native epoll transport), and both are governed. The
 * simulator is named in Sluice's config by its loopback address, since Netty's own DNS resolver
 * does not read the JDK's hosts file.
 */
class SpringAi1ReactorNettyIT {

    private static SpringApp.Result run(Provider p) throws Exception {
        SpringApp.Result r = SpringApp.springAi1()
                .variant(SpringApp.Variant.REACTOR_NETTY)
                // Netty resolves names with its own DNS client, past the JDK's hosts file: the
                // simulator is named by its loopback address in Sluice's config instead
                .agent(true, "config=" + p.loopbackConfig())
                .property("spring.ai.openai.base-url", p.loopbackBaseUrl())
                .timeout(java.time.Duration.ofSeconds(60))
                .property("spring.ai.openai.api-key", "sk-spring-1")
                .property("app.sync-calls", 12)
                .property("app.stream-calls", 6)
                .property("app.threads", 6)
                .run();
        System.out.printf("Reactor Netty variant, with agent: %s%n", r.summary);
        assertThat(r.completed()).as("completed; %s", r.failures()).isEqualTo(18);
        return r;
    }

    @Test
    void everyCallIsGoverned() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = run(p);
            assertThat(r.sluiceMap("UngovernedConnections")).isEmpty();
            assertThat(r.sluice("Admitted")).isGreaterThanOrEqualTo(18);
            assertThat(r.sluiceMap("RetryLayers").get("spring-retry.passed")).isGreaterThanOrEqualTo(12);
        }
    }
}
