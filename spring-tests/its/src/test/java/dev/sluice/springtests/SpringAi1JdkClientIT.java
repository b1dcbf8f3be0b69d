package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.IntSummaryStatistics;
import org.junit.jupiter.api.Test;

/**
 * Spring AI 1.1 on Boot 3.5 with Spring's default client (the JDK HttpClient, for RestClient and
 * WebClient alike), its retry settings as a user leaves or sets them, and nothing of Sluice but
 * {@code -javaagent}: every call governed, Spring AI's {@code RetryTemplate} making one pass for
 * them, figures side by side with the same app without the agent.
 */
class SpringAi1JdkClientIT {

    /** Sluice's default attempts per logical call (retry.maxAttempts). */
    private static final int SLUICE_MAX_ATTEMPTS = 3;

    private static SpringApp app(boolean agent, String baseUrl) {
        return SpringApp.springAi1()
                .variant(SpringApp.Variant.JDK_CLIENT)
                .agent(agent, null)
                .systemProperty("jdk.net.hosts.file", Provider.hostsFile())
                .property("spring.ai.openai.base-url", baseUrl)
                .property("spring.ai.openai.api-key", "sk-spring-1")
                .property("spring.ai.openai.chat.options.model", "gpt-4o-mini");
    }

    private static void print(String scenario, boolean agent, Provider p, SpringApp.Result r) {
        IntSummaryStatistics a = p.attemptStats();
        System.out.printf(
                "%s, %s agent: completed %d of %d, failures %s, attempts %d (max %d a call), provider 429s %d"
                        + " (%.1f %%), template failed attempts %d, sluice %s, %d ms%n",
                scenario,
                agent ? "with" : "without",
                r.completed(),
                r.summary.get("calls").asLong(),
                r.summary.get("failures"),
                p.attempts(),
                a.getCount() == 0 ? 0 : a.getMax(),
                p.rateLimited(),
                p.percent429(),
                r.summary.get("templateFailedAttempts").asLong(),
                r.summary.get("sluice"),
                r.summary.get("elapsedMillis").asLong());
    }

    @Test
    void syncAndStreamingCallsUnderTheProviderLimitAreAllGoverned() throws Exception {
        try (Provider p = Provider.limited()) {
            SpringApp.Result r = app(false, p.baseUrl())
                    .property("app.sync-calls", 60)
                    .property("app.stream-calls", 40)
                    .property("app.threads", 6)
                    .run();
            print("limited, 60 sync + 40 streams on 6 threads", false, p, r);
            assertThat(p.rateLimited())
                    .as("without Sluice the app meets the provider's limit (else this test proves nothing)")
                    .isPositive();
        }
        try (Provider p = Provider.limited()) {
            SpringApp.Result r = app(true, p.baseUrl())
                    .property("app.sync-calls", 60)
                    .property("app.stream-calls", 40)
                    .property("app.threads", 6)
                    .run();
            print("limited, 60 sync + 40 streams on 6 threads", true, p, r);
            assertThat(r.completed()).as("completed; %s", r.failures()).isEqualTo(100);
            assertThat(r.sluice("Admitted"))
                    .as("calls Sluice admitted (decisions)")
                    .isGreaterThanOrEqualTo(100);
            assertThat(p.percent429()).as("provider 429s, %% of attempts").isLessThanOrEqualTo(1.0);
            assertThat(p.attemptStats().getMax())
                    .as("attempts of any one call")
                    .isLessThanOrEqualTo(SLUICE_MAX_ATTEMPTS);
            assertThat(r.sluiceMap("UngovernedConnections"))
                    .as("no connection to the provider bypassed Sluice")
                    .isEmpty();
            assertThat(r.sluiceMap("RetryLayers"))
                    .as("Spring AI's RetryTemplate went through with its retries off for every sync call")
                    .containsKey("spring-retry.passed");
            assertThat(r.sluiceMap("RetryLayers").get("spring-retry.passed")).isGreaterThanOrEqualTo(60);
        }
    }

    /**
     * A 429 storm with {@code spring.ai.retry.on-http-codes=429}: without Sluice the template sends
     * every call ten times; with it, Sluice makes its own attempts and the template does not send the
     * 429 Sluice handed back ({@code x-should-retry: false}) again, at Spring AI's default backoff.
     */
    @Test
    void aStormOf429sIsNotResentByTheRetryTemplate() throws Exception {
        int calls = 6;
        try (Provider p = Provider.open()) {
            SpringApp.Result r = app(false, p.baseUrl())
                    .property("spring.ai.retry.on-http-codes", 429)
                    // the defaults (2 s, x5, 10 attempts) would take minutes without Sluice: same attempts, shorter
                    // waits
                    .property("spring.ai.retry.backoff.initial-interval", "10ms")
                    .property("spring.ai.retry.backoff.multiplier", 2)
                    .property("spring.ai.retry.backoff.max-interval", "50ms")
                    .property("app.sync-calls", calls)
                    .property("app.threads", 3)
                    .property("app.force", "rate_limited")
                    .run();
            print("429 storm, on-http-codes=429", false, p, r);
            assertThat(p.attemptStats().getMin())
                    .as("without Sluice Spring AI's template sends each call its 10 attempts")
                    .isEqualTo(10);
        }
        try (Provider p = Provider.open()) {
            SpringApp.Result r = app(true, p.baseUrl())
                    .property("spring.ai.retry.on-http-codes", 429)
                    .property("app.sync-calls", calls)
                    .property("app.threads", 3)
                    .property("app.force", "rate_limited")
                    .run();
            print("429 storm, on-http-codes=429", true, p, r);
            assertThat(r.completed()).isZero();
            assertThat(p.attemptStats().getMax())
                    .as("attempts of any one call: Sluice's own, none re-sent by the template")
                    .isLessThanOrEqualTo(SLUICE_MAX_ATTEMPTS);
            assertThat(r.summary.get("templateFailedAttempts").asLong())
                    .as("the template made one pass a call")
                    .isEqualTo(calls);
            assertThat(r.sluiceMap("RetryLayers")).containsEntry("spring-retry.declined", (long) calls);
        }
    }

    /**
     * An I/O failure (nothing listens at the provider's address): Spring AI's template retries a
     * {@code ResourceAccessException} ten times over more than a minute at its defaults; with Sluice
     * the template gives up after Sluice's own attempts.
     */
    @Test
    void anIoFailureIsNotRetriedForAMinute() throws Exception {
        String dead = Provider.deadBaseUrl();
        SpringApp.Result without = app(false, dead)
                .property("spring.ai.retry.backoff.initial-interval", "10ms")
                .property("spring.ai.retry.backoff.multiplier", 2)
                .property("spring.ai.retry.backoff.max-interval", "20ms")
                .property("app.sync-calls", 1)
                .property("app.threads", 1)
                .run();
        System.out.printf("I/O failure, without agent (10-50 ms backoff): %s%n", without.summary);
        assertThat(without.summary.get("templateFailedAttempts").asLong())
                .as("without Sluice the template makes its 10 attempts")
                .isEqualTo(10);

        long started = System.nanoTime();
        SpringApp.Result with = app(true, dead)
                .property("app.sync-calls", 1)
                .property("app.threads", 1)
                .timeout(Duration.ofSeconds(60))
                .run();
        long seconds = (System.nanoTime() - started) / 1_000_000_000L;
        System.out.printf("I/O failure, with agent (default backoff): %s, %d s in all%n", with.summary, seconds);
        assertThat(with.completed()).isZero();
        assertThat(with.summary.get("templateFailedAttempts").asLong())
                .as("the template made one pass")
                .isEqualTo(1);
        assertThat(with.summary.get("elapsedMillis").asLong())
                .as("the call failed after Sluice's own retries, not 70 s of the template's")
                .isLessThan(20_000);
        assertThat(with.sluiceMap("RetryLayers")).containsEntry("spring-retry.declined", 1L);
    }
}
