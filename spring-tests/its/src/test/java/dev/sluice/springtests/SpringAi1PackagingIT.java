package dev.sluice.springtests;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The same Spring AI 1.1 app as a Boot service ships it and runs it elsewhere: its executable jar
 * (Boot's nested-jar class loader holds spring-retry, Spring and Spring AI), and the flat class
 * path on JDK 25 ({@code sluice.jdk25.home}): governed calls, the template's one pass, and
 * connections no HTTP client opened reported.
 */
class SpringAi1PackagingIT {

    private static SpringApp storm(SpringApp app, Provider p) {
        return app.agent(true, null)
                .systemProperty("jdk.net.hosts.file", Provider.hostsFile())
                .property("spring.ai.openai.base-url", p.baseUrl())
                .property("spring.ai.openai.api-key", "sk-spring-1")
                .property("spring.ai.retry.on-http-codes", 429)
                .property("app.sync-calls", 3)
                .property("app.stream-calls", 2)
                .property("app.threads", 3)
                .property("app.force", "rate_limited")
                .property("app.raw-connections", 2);
    }

    private static void assertGovernedAndReported(Provider p, SpringApp.Result r) {
        assertThat(r.completed()).isZero();
        assertThat(p.attemptStats().getCount())
                .as("calls that reached the provider")
                .isEqualTo(5);
        assertThat(p.attemptStats().getMax()).as("Sluice's attempts only").isLessThanOrEqualTo(3);
        assertThat(r.summary.get("templateFailedAttempts").asLong())
                .as("one pass of the template per sync call")
                .isEqualTo(3);
        assertThat(r.sluiceMap("RetryLayers")).containsEntry("spring-retry.declined", 3L);
        assertThat(r.sluiceMap("UngovernedConnections"))
                .as("2 plain sockets and 2 socket channels opened by no HTTP client")
                .containsEntry(Provider.HOST + " via an unknown client", 4L)
                .hasSize(1);
    }

    @Test
    void theExecutableJar() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = storm(SpringApp.springAi1().executableJar(), p).run();
            System.out.printf("executable jar, with agent: %s%n", r.summary);
            assertGovernedAndReported(p, r);
        }
    }

    @Test
    void onJdk25() throws Exception {
        try (Provider p = Provider.open()) {
            SpringApp.Result r = storm(SpringApp.springAi1().javaHome(System.getProperty("sluice.jdk25.home")), p)
                    .run();
            System.out.printf("JDK 25, with agent: %s%n", r.summary);
            assertGovernedAndReported(p, r);
        }
    }
}
