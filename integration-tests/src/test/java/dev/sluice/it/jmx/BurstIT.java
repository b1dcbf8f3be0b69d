package dev.sluice.it.jmx;

import static dev.sluice.it.jmx.JmxIT.connectLikeJConsole;
import static dev.sluice.it.jmx.JmxIT.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.apps.PacedCallsApp;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.harness.SluiceYaml;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A configured burst, end to end: a provider limit of 600 a minute with {@code burst: 10} lets at
 * most 10 calls of a crowd through at once and the rest at 10 a second, and an operator lowering
 * the capacity and the burst over JMX while calls keep coming sees the new pace at the provider
 * within a second, not a fresh bucket let through at once.
 */
class BurstIT {

    private static final ObjectName RPM = name("dev.sluice:type=Limit,name=sim-rpm");

    private Simulator sim;

    @BeforeEach
    void startProvider() {
        sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(1_000_000)
                .tokensPerMinute(100_000_000)
                .instant()
                .start();
    }

    @AfterEach
    void stopProvider() {
        sim.close();
    }

    private String config(String burst) {
        return SluiceYaml.unlearnedProvider(
                "sim",
                "openai",
                sim.apiBaseUrl(),
                "limits:",
                "  - id: sim-rpm",
                "    dimension: requests",
                "    capacity: 600",
                "    window: 1m",
                "    burst: " + burst);
    }

    @Test
    void aBurstOfTenLetsAtMostTenOfACrowdThroughAtOnce() throws Exception {
        // one call first, so the crowd meets a warm JVM and a full bucket: the first calls of a cold
        // JVM are slowed on their way by class loading, and reach the provider together whenever
        // they were let through
        ForkedApp.of(PacedCallsApp.class)
                .withAgent(SluiceYaml.agentOptions(config("10")))
                .args(sim.apiBaseUrl(), "once", "pause:1500", "crowd:40")
                .run()
                .assertOk();
        List<Exchange> arrivals = sim.ledger().exchanges().stream()
                .sorted(Comparator.comparing(Exchange::arrivedAt))
                .skip(1)
                .toList();
        assertThat(arrivals).hasSize(40).allMatch(Exchange::admitted);
        Instant first = arrivals.get(0).arrivedAt();
        long inFirst100ms = arrivals.stream()
                .filter(e -> e.arrivedAt().isBefore(first.plusMillis(100)))
                .count();
        long inFirstSecond = arrivals.stream()
                .filter(e -> e.arrivedAt().isBefore(first.plusSeconds(1)))
                .count();
        Duration all = Duration.between(first, arrivals.get(39).arrivedAt());
        System.out.printf(
                "burst 10 of 600/min, 40 callers at once: %d in the first 100 ms, %d in the first second,"
                        + " the 40th after %d ms; most in any 100 ms: %d%n",
                inFirst100ms, inFirstSecond, all.toMillis(), mostInAny(arrivals, Duration.ofMillis(100)));
        assertThat(inFirst100ms).as("calls at once").isLessThanOrEqualTo(10);
        assertThat(mostInAny(arrivals, Duration.ofMillis(100)))
                .as("most in any 100 ms")
                .isLessThanOrEqualTo(11);
        assertThat(inFirstSecond)
                .as("in the first second: the burst, then 10 a second")
                .isBetween(10L, 21L);
        assertThat(all).as("the 40 calls are spread at 10 a second").isGreaterThan(Duration.ofMillis(2_500));
    }

    @Test
    void aCapacityAndBurstLoweredOverJmxUnderLoadGiveTheNewPaceWithinASecond() throws Exception {
        ForkedApp.Running app = ForkedApp.of(SteadyTrafficApp.class)
                .withAgent(SluiceYaml.agentOptions(config("2s")))
                .args(sim.apiBaseUrl(), 60, 24, "alpha")
                .start();
        try (JMXConnector connector = connectLikeJConsole(app.pid())) {
            MBeanServerConnection jmx = connector.getMBeanServerConnection();
            await().atMost(Duration.ofSeconds(20)).until(() -> jmx.isRegistered(RPM));
            assertThat(jmx.getAttribute(RPM, "Burst")).isEqualTo(20L);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> sim.ledger().counts().admitted() >= 40);
            double before = perSecond(admittedDuring(Duration.ofSeconds(3)), 3);

            jmx.setAttribute(RPM, new Attribute("Capacity", 120L));
            jmx.setAttribute(RPM, new Attribute("Burst", 2L));
            Instant lowered = Instant.now();
            assertThat(jmx.getAttribute(RPM, "Burst")).isEqualTo(2L);
            Thread.sleep(6_500); // a measuring window, not a wait for some state
            long firstSecond = sim.ledger().admittedInWindow(lowered, lowered.plusSeconds(1));
            double after =
                    perSecond(sim.ledger().admittedInWindow(lowered.plusSeconds(1), lowered.plusMillis(6_500)), 5.5);

            jmx.setAttribute(RPM, new Attribute("Capacity", 600L));
            jmx.setAttribute(RPM, new Attribute("Burst", 10L));
            Instant raised = Instant.now();
            Thread.sleep(3_500); // a measuring window
            double again =
                    perSecond(sim.ledger().admittedInWindow(raised.plusSeconds(1), raised.plusMillis(3_500)), 2.5);
            System.out.printf(
                    "600/min burst 20 under 24 callers: %.1f/s; lowered over JMX to 120/min burst 2: %d in the"
                            + " first second, then %.1f/s; raised to 600/min burst 10: %.1f/s%n",
                    before, firstSecond, after, again);
            assertThat(before).as("calls a second at 600/min").isBetween(8.0, 11.5);
            assertThat(firstSecond).as("calls in the second after lowering").isLessThanOrEqualTo(6);
            assertThat(after).as("calls a second at 120/min").isBetween(1.4, 2.8);
            assertThat(again).as("calls a second at 600/min again").isBetween(8.0, 11.5);
            assertThatRefused(jmx);
        } finally {
            app.kill();
            app.process().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static void assertThatRefused(MBeanServerConnection jmx) {
        try {
            jmx.setAttribute(RPM, new Attribute("Burst", 601L));
            throw new AssertionError("a burst above the capacity was accepted");
        } catch (Exception e) {
            assertThat(rootMessage(e)).isEqualTo("burst must be at most the capacity, 600, was 601");
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    /** The most calls that arrived within any {@code window}. */
    private static int mostInAny(List<Exchange> arrivals, Duration window) {
        int most = 0;
        for (int i = 0, j = 0; i < arrivals.size(); i++) {
            while (!arrivals.get(j)
                    .arrivedAt()
                    .plus(window)
                    .isAfter(arrivals.get(i).arrivedAt())) {
                j++;
            }
            most = Math.max(most, i - j + 1);
        }
        return most;
    }

    private long admittedDuring(Duration window) throws InterruptedException {
        Instant from = Instant.now();
        Thread.sleep(window.toMillis()); // a measuring window, not a wait for some state
        return sim.ledger().admittedInWindow(from, from.plus(window));
    }

    private static double perSecond(long calls, double seconds) {
        return calls / seconds;
    }
}
