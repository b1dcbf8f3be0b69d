package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Spring AI 1.1 with {@code reactor-netty-http} on the class path: Boot's RestClient and WebClient
 * both pick Reactor Netty (on Linux over its native epoll transport).
 *
 * <p>Until Sluice's Reactor Netty hook lands, every call is ungoverned and must be
 * <em>detected</em> (connections reported under the client name {@code netty}; the
 * simulator is named in Sluice's config by its loopback address, since Netty's own DNS resolver
 * does not read the JDK's hosts file): that runs by
 * default. Once the hook is merged (and its module declares {@code governedClients() = ["netty",
 * "reactor-netty"]}), run with {@code -Dsluice.hooks.reactor-netty=true} (or set it in this
 * module's failsafe {@code systemPropertyVariables}): the governed test runs instead.
 */
class SpringAi1ReactorNettyIT {

    static final String SWITCH = "sluice.hooks.reactor-netty";

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
    @DisabledIfSystemProperty(named = SWITCH, matches = "true")
    void todayTheCallsThroughReactorNettyAreDetectedAsUngoverned() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = run(p);
            UngovernedClients.assertDetected(r, "127.0.0.1", "netty");
            assertThat(r.sluice("Admitted"))
                    .as("nothing went through the governor")
                    .isZero();
        }
    }

    @Test
    @EnabledIfSystemProperty(named = SWITCH, matches = "true")
    void everyCallIsGovernedOnceTheHookLands() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = run(p);
            assertThat(r.sluiceMap("UngovernedConnections")).isEmpty();
            assertThat(r.sluice("Admitted")).isGreaterThanOrEqualTo(18);
            assertThat(r.sluiceMap("RetryLayers").get("spring-retry.passed")).isGreaterThanOrEqualTo(12);
        }
    }
}
