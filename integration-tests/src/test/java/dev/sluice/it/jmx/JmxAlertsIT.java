package dev.sluice.it.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.it.harness.ForkedApp;
import dev.sluice.it.metrics.MetricsIT;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.fault.FaultKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanNotificationInfo;
import javax.management.MBeanServerConnection;
import javax.management.Notification;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Governor bean's alerts heard as an operator's console hears them: a forked service with the
 * agent calls a simulated OpenAI, the test connects as JConsole does and listens on
 * {@code dev.sluice:type=Governor}; when the simulator storms with 429s, one
 * {@code sluice.alert.provider429Spike} arrives, and one {@code sluice.alert.cleared} once the
 * storm is over. The rule's windows and holds run twenty times faster
 * ({@code dev.sluice.agent.test.alertTimeScale}), so the test takes seconds, not minutes.
 */
class JmxAlertsIT {

    private static final ObjectName GOVERNOR = JmxIT.name("dev.sluice:type=Governor");

    private Simulator sim;
    private Path config;
    private ForkedApp.Running app;
    private JMXConnector connector;
    private final List<Notification> heard = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        sim = MetricsIT.simulator();
        config = Files.createTempFile("sluice-jmx-alerts-it-", ".yaml");
        Files.writeString(config, MetricsIT.config(sim), StandardCharsets.UTF_8);
        app = ForkedApp.of(SteadyTrafficApp.class)
                .withAgent("config=" + config)
                .systemProperty("dev.sluice.agent.test.alertTimeScale", "0.05")
                .args(sim.apiBaseUrl(), 120, 2, "alpha", "beta")
                .start();
        connector = JmxIT.connectLikeJConsole(app.pid());
    }

    @AfterEach
    void stop() throws Exception {
        if (connector != null) {
            connector.close();
        }
        if (app != null) {
            app.kill();
            app.process().waitFor(10, TimeUnit.SECONDS);
        }
        sim.close();
        Files.deleteIfExists(config);
    }

    @Test
    void aConsoleHearsThe429SpikeStartAndClear() throws Exception {
        MBeanServerConnection jmx = connector.getMBeanServerConnection();
        await("the agent's MXBeans").atMost(Duration.ofSeconds(20)).until(() -> jmx.isRegistered(GOVERNOR));
        MBeanNotificationInfo[] info = jmx.getMBeanInfo(GOVERNOR).getNotifications();
        assertThat(info[0].getNotifTypes()).contains("sluice.alert.provider429Spike", "sluice.alert.cleared");
        jmx.addNotificationListener(GOVERNOR, (n, handback) -> heard.add(n), null, null);
        await("traffic flowing")
                .atMost(Duration.ofSeconds(20))
                .until(() -> sim.ledger().counts().admitted() >= 40);
        Thread.sleep(1_000); // quiet traffic for a few checks: nothing to announce
        assertThat(heard).isEmpty();

        sim.faults().during(FaultKind.RATE_LIMITED, Duration.ofSeconds(20));
        await("the spike announced")
                .atMost(Duration.ofSeconds(20))
                .until(() -> heard.stream().anyMatch(n -> n.getType().equals("sluice.alert.provider429Spike")));
        Notification spike = heard.get(0);
        assertThat(spike.getType()).isEqualTo("sluice.alert.provider429Spike");
        assertThat(spike.getSource()).isEqualTo(GOVERNOR);
        assertThat(spike.getMessage()).startsWith("SluiceProvider429Spike: provider sim answers 429 at ");
        Map<?, ?> data = (Map<?, ?>) spike.getUserData();
        assertThat(data.get("provider")).isEqualTo("sim");
        assertThat((Double) data.get("value")).isGreaterThan(0.2);
        assertThat(data.get("threshold")).isEqualTo(0.2);

        await("the spike cleared after the storm")
                .atMost(Duration.ofSeconds(40))
                .until(() -> heard.stream().anyMatch(n -> n.getType().equals("sluice.alert.cleared")));
        Thread.sleep(1_000);
        assertThat(heard)
                .as("one notification when it started, one when it cleared, nothing else")
                .extracting(Notification::getType)
                .containsExactly("sluice.alert.provider429Spike", "sluice.alert.cleared");
        Notification cleared = heard.get(1);
        assertThat(cleared.getMessage()).startsWith("SluiceProvider429Spike cleared: provider sim answers 429 at ");
        assertThat(((Map<?, ?>) cleared.getUserData()).get("cleared")).isEqualTo("sluice.alert.provider429Spike");
        assertThat(cleared.getTimeStamp()).isGreaterThan(spike.getTimeStamp());
    }
}
