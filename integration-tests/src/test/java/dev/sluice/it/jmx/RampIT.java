package dev.sluice.it.jmx;

import static dev.sluice.it.jmx.JmxIT.cli;
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
import dev.sluice.simulator.ledger.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A ramp, end to end: openai-java calls a simulated OpenAI that answers 429 {@code slow_down} when
 * the requests of the last second are more than twice those of the second before. A service
 * calling 5 a second jumps to 50 a second: without a ramp the provider refuses part of the jump;
 * with {@code ramp: {growth: 1.5, interval: 1s}} Sluice lets the rate grow by half a second at
 * most, the calls wait their turn, and the provider refuses none. The ramp's state is on its MXBean
 * and in {@code status} while it ramps.
 */
class RampIT {

    private static final ObjectName RAMP = name("dev.sluice:type=Ramp,name=sim");
    /** The simulator's URL, then 5 calls a second for 4 s, then 50 a second for 6 s. */
    private Object[] load() {
        return new Object[] {sim.apiBaseUrl(), "once", "5/s:4", "50/s:6"};
    }

    private Simulator sim;

    @BeforeEach
    void startProvider() {
        sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(1_000_000)
                .tokensPerMinute(100_000_000)
                .instant()
                .accelerationLimit(2, Duration.ofSeconds(1), 12)
                .start();
    }

    @AfterEach
    void stopProvider() {
        sim.close();
    }

    private String config(String ramp) {
        return SluiceYaml.unlearnedProvider("sim", "openai", sim.apiBaseUrl(), "ramp: " + ramp);
    }

    @Test
    void aRampKeepsTheProvidersRefusalsAtZeroWhenTheLoadJumpsTenfold() throws Exception {
        ForkedApp.of(PacedCallsApp.class)
                .withAgent(SluiceYaml.agentOptions(config("{enabled: false}")))
                .args(load())
                .run()
                .assertOk();
        long unrampedRefused = slowDowns();
        List<Long> unrampedPerSecond = acceptedPerSecond();
        sim.reset();

        ForkedApp.Running app = ForkedApp.of(PacedCallsApp.class)
                .withAgent(SluiceYaml.agentOptions(config("{growth: 1.5, interval: 1s, floor: 5}")))
                .args(load())
                .start();
        String status;
        String state;
        try (JMXConnector connector = connectLikeJConsole(app.pid())) {
            MBeanServerConnection jmx = connector.getMBeanServerConnection();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> jmx.isRegistered(RAMP)
                            && "ramping".equals(jmx.getAttribute(RAMP, "State"))
                            && (Double) jmx.getAttribute(RAMP, "CeilingPerSecond") > 9); // the jump, not the floor
            state = (String) jmx.getAttribute(RAMP, "State");
            status = cli("status", Long.toString(app.pid()));
            assertThat((Double) jmx.getAttribute(RAMP, "Growth")).isEqualTo(1.5);
        }
        app.awaitExit(Duration.ofSeconds(60)).assertOk();
        long rampedRefused = slowDowns();
        List<Long> rampedPerSecond = acceptedPerSecond();
        System.out.printf(
                "5/s jumping to 50/s against a x2-a-second acceleration limit: without a ramp %d slow_down 429s,"
                        + " calls a second %s; with ramp x1.5 a second: %d, calls a second %s%n",
                unrampedRefused, unrampedPerSecond, rampedRefused, rampedPerSecond);
        assertThat(unrampedRefused).as("429 slow_down without a ramp").isPositive();
        assertThat(rampedRefused).as("429 slow_down with the ramp").isZero();
        assertThat(sim.ledger().exchanges()).as("every call of the ramped run").hasSize(1 + 20 + 300);
        assertThat(state).isEqualTo("ramping");
        assertThat(status).contains("RAMP").containsPattern("sim +ramping");
    }

    private long slowDowns() {
        return sim.ledger().exchanges().stream()
                .filter(e -> e.outcome() == Outcome.REJECTED && "acceleration".equals(e.refusedBy()))
                .count();
    }

    /** Requests the provider accepted in each second from the first one. */
    private List<Long> acceptedPerSecond() {
        List<Exchange> accepted =
                sim.ledger().exchanges().stream().filter(Exchange::admitted).toList();
        Instant first = accepted.get(0).arrivedAt();
        List<Long> perSecond = new ArrayList<>();
        for (Exchange e : accepted) {
            int s = (int) Duration.between(first, e.arrivedAt()).toSeconds();
            while (perSecond.size() <= s) {
                perSecond.add(0L);
            }
            perSecond.set(s, perSecond.get(s) + 1);
        }
        return perSecond;
    }
}
