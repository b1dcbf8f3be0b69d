package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.IntSummaryStatistics;
import org.junit.jupiter.api.Test;

/**
 * Spring AI 2.0 on Boot 4.0: its OpenAI model sits on openai-java (its own OkHttp client), whose
 * retries {@code spring.ai.openai.max-retries} sets (default 3). Sluice's existing openai-java and
 * OkHttp hooks govern it with nothing but {@code -javaagent}; the SDK's retries fold into Sluice's
 * single loop ({@code retry.maxAttempts}, 3 by default), whatever the setting says.
 */
class SpringAi2IT {

    private static final int SLUICE_MAX_ATTEMPTS = 3;

    private static SpringApp app(boolean agent, Provider p) {
        return SpringApp.springAi2()
                .agent(agent, null)
                .systemProperty("jdk.net.hosts.file", Provider.hostsFile())
                .property("spring.ai.openai.base-url", p.baseUrl() + "/v1")
                .property("spring.ai.openai.api-key", "sk-spring-2")
                .property("spring.ai.openai.chat.options.model", "gpt-4o-mini");
    }

    private static void print(String scenario, boolean agent, Provider p, SpringApp.Result r) {
        IntSummaryStatistics a = p.attemptStats();
        System.out.printf(
                "Spring AI 2.0, %s, %s agent: completed %d of %d, failures %s, attempts %d (max %d a call),"
                        + " provider 429s %d (%.1f %%), sluice %s, %d ms%n",
                scenario,
                agent ? "with" : "without",
                r.completed(),
                r.summary.get("calls").asLong(),
                r.summary.get("failures"),
                p.attempts(),
                a.getCount() == 0 ? 0 : a.getMax(),
                p.rateLimited(),
                p.percent429(),
                r.summary.get("sluice"),
                r.summary.get("elapsedMillis").asLong());
    }

    @Test
    void syncAndStreamingCallsUnderTheProviderLimitAreAllGoverned() throws Exception {
        try (Provider p = Provider.limited()) {
            SpringApp.Result r = app(true, p)
                    .property("app.sync-calls", 60)
                    .property("app.stream-calls", 40)
                    .property("app.threads", 6)
                    .run();
            print("limited, 60 sync + 40 streams on 6 threads", true, p, r);
            assertThat(r.completed()).as("completed; %s", r.failures()).isEqualTo(100);
            assertThat(p.attemptsPerCall())
                    .as("every call carried its id to the provider")
                    .hasSize(100);
            assertThat(r.sluice("Admitted")).isGreaterThanOrEqualTo(100);
            assertThat(p.percent429()).as("provider 429s, %% of attempts").isLessThanOrEqualTo(1.0);
            assertThat(p.attemptStats().getMax()).isLessThanOrEqualTo(SLUICE_MAX_ATTEMPTS);
            assertThat(r.sluiceMap("UngovernedConnections")).isEmpty();
        }
    }

    /**
     * {@code spring.ai.openai.max-retries=5} in a 429 storm: without Sluice the SDK sends each call
     * six times; with it, each call gets Sluice's attempts only and the SDK's retries are declined.
     */
    @Test
    void theSdkRetrySettingFoldsIntoSluicesSingleLoop() throws Exception {
        int calls = 4;
        try (Provider p = Provider.open()) {
            SpringApp.Result r = app(false, p)
                    .property("spring.ai.openai.max-retries", 5)
                    .property("app.sync-calls", calls)
                    .property("app.threads", calls)
                    .property("app.force", "rate_limited")
                    .run();
            print("429 storm, max-retries=5", false, p, r);
            assertThat(p.attemptStats().getMin())
                    .as("without Sluice openai-java sends each call 1 + max-retries times")
                    .isEqualTo(6);
        }
        try (Provider p = Provider.open()) {
            SpringApp.Result r = app(true, p)
                    .property("spring.ai.openai.max-retries", 5)
                    .property("app.sync-calls", calls)
                    .property("app.threads", calls)
                    .property("app.force", "rate_limited")
                    .run();
            print("429 storm, max-retries=5", true, p, r);
            assertThat(r.completed()).isZero();
            assertThat(p.attemptStats().getCount()).isEqualTo(calls);
            assertThat(p.attemptStats().getMax())
                    .as("attempts of any one call: Sluice's loop only")
                    .isLessThanOrEqualTo(SLUICE_MAX_ATTEMPTS);
            assertThat(r.sluiceMap("RetryLayers").getOrDefault("openai-java.declined", 0L))
                    .as("the SDK's retries Sluice declined")
                    .isGreaterThanOrEqualTo(calls);
        }
    }
}
