package dev.sluice.it.providers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code java -jar sluice-agent.jar attach <pid> <config>}, run as its own process,
 * installs the agent into a running JVM whose openai-java client and raw OkHttpClient were built
 * (and used) before; from then on their calls are governed. Proof: a configured limit of 4
 * requests per minute, all 4 allowed at once ({@code burst: 4}; an OpenAI limit's default burst is
 * 1 s of its rate), that the "before" calls exceed freely; after the attach, 4 more pass and the
 * rest are rejected locally in OpenAI's shape.
 */
class LateAttachIT {

    static final int CALLS = 5;

    @ParameterizedTest
    @EnumSource(ForkedApp.Jdk.class)
    void attachingGovernsClientsBuiltBeforeIt(ForkedApp.Jdk jdk) throws Exception {
        String java = jdk.java();
        try (Simulator sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(6_000)
                .tokensPerMinute(1_000_000)
                .instant()
                .start()) {
            String config = ProviderRuns.file(
                    ".yaml",
                    "providers:",
                    "  - name: openai-local",
                    "    kind: openai",
                    "    match: {urls: [\"" + sim.apiBaseUrl() + "/\"]}",
                    "    limits:",
                    "      - {dimension: requests, capacity: 4, window: 1m, burst: 4}",
                    "trafficClasses:",
                    "  - {name: default, maxWait: 200ms}");
            ForkedApp.Running app = ForkedApp.of(LateAttachApp.class)
                    .jdk(jdk)
                    .args(sim.apiBaseUrl(), CALLS)
                    .start();
            try {
                awaitReady(app);
                assertThat(sim.ledger().counts().admitted())
                        .as("calls before the attach")
                        .isEqualTo(2L * CALLS);

                Attach attached = attach(java, app.pid(), config);
                assertThat(attached.exitCode)
                        .as("attach exit status; it said: %s", attached.said)
                        .isZero();
                assertThat(attached.said)
                        .contains("sluice attached to JVM " + app.pid())
                        .contains("mode=enforce")
                        .contains("config=file " + config)
                        .contains("start=attach");
                Attach again = attach(java, app.pid(), config);
                assertThat(again.exitCode)
                        .as("a second attach; it said: %s", again.said)
                        .isEqualTo(3);
                assertThat(again.said).contains("already runs the agent").contains("nothing was loaded");

                try (OutputStream stdin = app.process().getOutputStream()) {
                    stdin.write("go\n".getBytes(StandardCharsets.UTF_8));
                }
                ForkedApp.Result r = app.awaitExit(Duration.ofSeconds(60)).assertOk();
                JsonNode counters = r.summary().get("counters");
                System.out.printf(
                        "late attach on %s: %s%n  %s%n", jdk, sim.ledger().counts(), counters);
                assertThat(counters.path("before.openai.ok").asLong()).isEqualTo(CALLS);
                assertThat(counters.path("before.okhttp.200").asLong()).isEqualTo(CALLS);
                long passed = counters.path("after.openai.ok").asLong()
                        + counters.path("after.okhttp.200").asLong();
                long rejected = counters.path("after.openai.429:rejected_locally")
                                .asLong()
                        + counters.path("after.okhttp.429:rejected_locally").asLong();
                assertThat(passed).as("calls admitted after the attach").isEqualTo(4);
                assertThat(rejected).as("local rejections after the attach").isEqualTo(2L * CALLS - 4);
                assertThat(counters.path("after.openai.429:rejected_locally").asLong())
                        .isPositive();
                assertThat(counters.path("after.okhttp.429:rejected_locally").asLong())
                        .isPositive();
                assertThat(sim.ledger().counts().admitted()).isEqualTo(2L * CALLS + 4);
                assertThat(sim.ledger().counts().rejected()).isZero();
                assertThat(r.stderr).contains("[sluice] ").contains("config=file " + config);
            } finally {
                app.kill();
            }
        }
    }

    /** A JVM started with -XX:+DisableAttachMechanism is refused, and the user is told why and what to do. */
    @Test
    void aJvmThatDisallowsAttachIsNamedAsSuch() throws Exception {
        String java = ForkedApp.Jdk.JDK17.java();
        try (Simulator sim =
                Simulator.builder().profile(Profile.OPENAI).instant().start()) {
            ForkedApp.Running app = ForkedApp.of(LateAttachApp.class)
                    .env("JAVA_TOOL_OPTIONS", "-XX:+DisableAttachMechanism")
                    .args(sim.apiBaseUrl(), 1)
                    .start();
            try {
                awaitReady(app);
                Attach refused = attach(java, app.pid(), null);
                assertThat(refused.exitCode)
                        .as("attach exit status; it said: %s", refused.said)
                        .isEqualTo(1);
                assertThat(refused.said)
                        .contains("cannot attach to JVM " + app.pid())
                        .contains("-XX:+DisableAttachMechanism")
                        .contains("-javaagent:");
            } finally {
                app.kill();
            }
        }
    }

    /** What {@code java -jar sluice-agent.jar attach} did, run as its own process. */
    private static final class Attach {
        final int exitCode;
        final String said;

        Attach(int exitCode, String said) {
            this.exitCode = exitCode;
            this.said = said;
        }
    }

    private static Attach attach(String java, long pid, String config) throws Exception {
        Path out = Files.createTempFile("sluice-attach-", ".out");
        try {
            List<String> command = new java.util.ArrayList<>(
                    List.of(java, "-jar", ForkedApp.AGENT_JAR.toString(), "attach", Long.toString(pid)));
            if (config != null) {
                command.add(config);
            }
            Process attach = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            assertThat(attach.waitFor(60, TimeUnit.SECONDS))
                    .as("attach finished")
                    .isTrue();
            return new Attach(attach.exitValue(), Files.readString(out));
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static void awaitReady(ForkedApp.Running app) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!List.of(app.stdoutSoFar().split("\n")).contains("READY")) {
            assertThat(app.process().isAlive())
                    .as("the app is running; it said: %s", app.stdoutSoFar())
                    .isTrue();
            assertThat(System.nanoTime() - deadline).as("READY within 60 s").isNegative();
            Thread.sleep(50);
        }
    }
}
