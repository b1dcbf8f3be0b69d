package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Spring AI 1.1 with Apache HttpClient 5 on the class path: Boot's RestClient picks it for the
 * sync calls (streams stay on the JDK client: no httpcore5-reactive).
 *
 * <p>Until Sluice's HC5 hook lands, the sync calls are ungoverned and must be <em>detected</em>:
 * that is what runs by default. Once the hook is merged (and its module declares
 * {@code governedClients() = ["apache-httpclient-5"]}), run with
 * {@code -Dsluice.hooks.httpclient5=true} (or set it in this module's failsafe
 * {@code systemPropertyVariables}): the governed test runs and the detection test is skipped.
 */
class SpringAi1HttpClient5IT {

    static final String SWITCH = "sluice.hooks.httpclient5";

    private static SpringApp.Result run(Provider p) throws Exception {
        SpringApp.Result r = SpringApp.springAi1()
                .variant(SpringApp.Variant.HTTPCLIENT5)
                .agent(true, null)
                .systemProperty("jdk.net.hosts.file", Provider.hostsFile())
                .property("spring.ai.openai.base-url", p.baseUrl())
                .property("spring.ai.openai.api-key", "sk-spring-1")
                .property("app.sync-calls", 12)
                .property("app.stream-calls", 6)
                .property("app.threads", 6)
                .run();
        System.out.printf("HC5 variant, with agent: %s%n", r.summary);
        assertThat(r.completed()).as("completed; %s", r.failures()).isEqualTo(18);
        return r;
    }

    @Test
    @DisabledIfSystemProperty(named = SWITCH, matches = "true")
    void todayTheSyncCallsThroughHttpClient5AreDetectedAsUngoverned() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = run(p);
            UngovernedClients.assertDetected(r, "apache-httpclient-5");
            assertThat(r.sluice("Admitted"))
                    .as("only the streams (JDK client) were governed")
                    .isEqualTo(6);
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
