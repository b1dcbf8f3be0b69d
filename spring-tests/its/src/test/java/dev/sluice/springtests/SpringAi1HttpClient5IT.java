package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Spring AI 1.1 with Apache HttpClient 5 on the class path: Boot's RestClient picks it for the
 * sync calls (streams stay on the JDK client: no httpcore5-reactive). Both are governed: no
 * connection to the provider goes ungoverned, and Spring AI's RetryTemplate makes one pass.
 */
class SpringAi1HttpClient5IT {

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
    void everyCallIsGoverned() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = run(p);
            assertThat(r.sluiceMap("UngovernedConnections")).isEmpty();
            assertThat(r.sluice("Admitted")).isGreaterThanOrEqualTo(18);
            assertThat(r.sluiceMap("RetryLayers").get("spring-retry.passed")).isGreaterThanOrEqualTo(12);
        }
    }
}
