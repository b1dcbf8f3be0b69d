package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Spring AI 1.1 with Apache HttpClient 5 on the class path: Boot's RestClient picks it for the
 * sync calls (streams stay on the JDK client: no httpcore5-reactive). Both are governed: no
 * connection to the provider goes ungoverned, and Spring AI's RetryTemplate makes one pass.
 */
class SpringAi1HttpClient5IT {

    private static SpringApp.Result run(Provider p, int syncCalls, int streamCalls) throws Exception {
        SpringApp.Result r = SpringApp.springAi1()
                .variant(SpringApp.Variant.HTTPCLIENT5)
                .agent(true, null)
                .systemProperty("jdk.net.hosts.file", Provider.hostsFile())
                .property("spring.ai.openai.base-url", p.baseUrl())
                .property("spring.ai.openai.api-key", "sk-spring-1")
                .property("app.sync-calls", syncCalls)
                .property("app.stream-calls", streamCalls)
                .property("app.threads", 6)
                .run();
        System.out.printf(
                "HC5 variant, %d sync + %d streams, with agent: attempts %d (max %d a call), provider 429s %d"
                        + " (%.1f %%); %s%n",
                syncCalls,
                streamCalls,
                p.attempts(),
                p.attemptStats().getCount() == 0 ? 0 : p.attemptStats().getMax(),
                p.rateLimited(),
                p.percent429(),
                r.summary);
        assertThat(r.completed()).as("completed; %s", r.failures()).isEqualTo(syncCalls + streamCalls);
        return r;
    }

    @Test
    void everyCallIsGoverned() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = run(p, 12, 6);
            assertThat(r.sluiceMap("UngovernedConnections")).isEmpty();
            assertThat(r.sluice("Admitted")).isGreaterThanOrEqualTo(18);
            assertThat(r.sluiceMap("RetryLayers").get("spring-retry.passed")).isGreaterThanOrEqualTo(12);
        }
    }

    /**
     * No config, a cold start against 300 requests a minute (30 at once) with 6 threads: the calls
     * held while the first answers come go out on what those answers say, and no call meets a
     * provider refusal (at most 1 % of attempts, which for 100 calls is none).
     */
    @Test
    void aColdStartAtTheProviderLimitMeetsNoRefusal() throws Exception {
        try (Provider p = Provider.limited()) {
            run(p, 60, 40);
            assertThat(p.percent429()).as("provider 429s, %% of attempts").isLessThanOrEqualTo(1.0);
            assertThat(p.attemptStats().getMax()).as("attempts of any one call").isEqualTo(1);
        }
    }
}
