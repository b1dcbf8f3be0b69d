package dev.sluice.it.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.it.apps.OpenAiOneCallApp;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The agent builds its configuration and governor on the {@code sluice-start} thread after
 * {@code premain}. A call made the moment the application starts, before that build is done, waits
 * for it and is governed like any other; past the bound ({@code dev.sluice.agent.startWaitMillis})
 * it fails open. The build is slowed by a test-only property so the call surely comes first, and
 * the app reports the agent's state as its call began to prove it.
 */
@Isolated
class AgentStartupIT {

    private static final String DELAY = "dev.sluice.agent.test.startDelayMillis";
    private static final String WAIT = "dev.sluice.agent.startWaitMillis";

    @ParameterizedTest
    @EnumSource(ForkedApp.Jdk.class)
    void aCallMadeBeforeTheGovernorIsBuiltWaitsForItAndIsGoverned(ForkedApp.Jdk jdk) throws Exception {
        try (Simulator sim = simulator()) {
            ForkedApp.Result r = app(sim, jdk)
                    .systemProperty(DELAY, "5000")
                    .systemProperty(WAIT, "60000")
                    .run()
                    .assertOk();
            assertThat(r.stdout).contains("AGENT_AT_START=starting ").contains("AGENT_AT_CALL=starting ");
            assertThat(r.stdout).contains("AGENT_AFTER_CALL=running ").contains("COMPLETION=");
            assertThat(r.startLine()).contains("mode=enforce").contains("defaults");
            assertThat(sim.ledger().counts().admitted()).isEqualTo(1);
            assertThat(sim.ledger().exchanges())
                    .as("governed: Sluice read its own header and stripped it before the request left")
                    .extracting(Exchange::tenant)
                    .containsExactly((String) null);
            assertThat(r.stderr).doesNotContain("was not ready");
        }
    }

    @ParameterizedTest
    @EnumSource(ForkedApp.Jdk.class)
    void aCallThatWaitsPastTheBoundFailsOpen(ForkedApp.Jdk jdk) throws Exception {
        try (Simulator sim = simulator()) {
            ForkedApp.Result r = app(sim, jdk)
                    .systemProperty(DELAY, "20000")
                    .systemProperty(WAIT, "300")
                    .run()
                    .assertOk();
            assertThat(r.stdout).contains("AGENT_AT_CALL=starting ").contains("COMPLETION=");
            assertThat(r.stderr).contains("the governor was not ready 300 ms after start");
            assertThat(r.startLine()).contains("the JVM exits before the governor was built");
            assertThat(sim.ledger().counts().admitted()).isEqualTo(1);
            assertThat(sim.ledger().exchanges())
                    .as("ungoverned: the header reaches the provider untouched")
                    .extracting(Exchange::tenant)
                    .containsExactly("acme");
        }
    }

    /**
     * Without the slowed build: the call that comes at once is governed too. And neither the
     * agent's start nor that first call spins a class for a lambda of the agent's own code: each
     * cost the application's start-up a class made with the JDK's bytecode writer, and work for
     * the JIT after it (docs/startup-figures.md). The shaded libraries' own lambdas are not ours.
     * JMX is off in this run: {@code sluice-jmx} registers the MXBeans two seconds after the
     * start, deferred work that a slow machine lets this app live long enough to see.
     */
    @ParameterizedTest
    @EnumSource(ForkedApp.Jdk.class)
    void aCallAtOnceIsGovernedAndTheAgentSpinsNoLambdaOnTheWay(ForkedApp.Jdk jdk) throws Exception {
        Path classLog = Files.createTempFile("sluice-classes", ".log");
        try (Simulator sim = simulator()) {
            ForkedApp.Result r = app(sim, jdk)
                    .jvmOption("-Xlog:class+load=info:file=" + classLog)
                    .systemProperty("sluice.jmx.enabled", "false")
                    .run()
                    .assertOk();
            assertThat(r.stdout).contains("AGENT_AFTER_CALL=running ").contains("COMPLETION=");
            assertThat(sim.ledger().exchanges()).extracting(Exchange::tenant).containsExactly((String) null);
        }
        List<String> loaded = Files.readAllLines(classLog);
        assertThat(loaded)
                .as("the log names the agent's classes")
                .anyMatch(line -> line.contains(" dev.sluice.core.Governor "));
        assertThat(loaded)
                .as("lambda classes of the agent's own code")
                .filteredOn(line -> line.matches(".* dev\\.sluice\\.(?!shaded\\.|it\\.)\\S*\\$\\$Lambda.*"))
                .isEmpty();
    }

    private static Simulator simulator() {
        return Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(6_000)
                .tokensPerMinute(1_000_000)
                .tenantHeaders("X-Sluice-Tenant")
                .instant()
                .start();
    }

    private static ForkedApp app(Simulator sim, ForkedApp.Jdk jdk) throws Exception {
        Path hosts = Files.createTempFile("sluice-hosts", "");
        Files.writeString(hosts, "127.0.0.1 api.openai.com\n");
        return ForkedApp.of(OpenAiOneCallApp.class)
                .jdk(jdk)
                .withAgent((String) null)
                .systemProperty("jdk.net.hosts.file", hosts.toString())
                .args("http://api.openai.com:" + sim.port() + "/v1", "acme");
    }
}
