package dev.sluice.it.jmx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.tools.attach.AttachOperationFailedException;
import com.sun.tools.attach.VirtualMachine;
import dev.sluice.it.harness.ForkedApp;
import dev.sluice.simulator.Profile;
import dev.sluice.simulator.Simulator;
import dev.sluice.simulator.ledger.Exchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.Attribute;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An operator's session against a live service: a forked JVM runs the agent and keeps calling a
 * simulated OpenAI for two tenants; the test connects as JConsole does (the local connector the
 * Attach API starts), reads the beans, lowers a capacity and sees the pace drop at the provider,
 * pauses a tenant and sees its calls rejected with {@code paused}, resumes it, and runs
 * {@code status} and {@code limits} against the JVM.
 */
class JmxIT {

    private static final ObjectName GOVERNOR = name("dev.sluice:type=Governor");
    private static final ObjectName RPM = name("dev.sluice:type=Limit,name=sim-rpm");

    private Simulator sim;
    private Path config;
    private ForkedApp.Running app;
    private JMXConnector connector;
    private MBeanServerConnection jmx;

    @BeforeEach
    void startService() throws Exception {
        sim = Simulator.builder()
                .profile(Profile.OPENAI)
                .requestsPerMinute(1_000_000)
                .tokensPerMinute(100_000_000)
                .instant()
                .start();
        config = Files.createTempFile("sluice-jmx-it-", ".yaml");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        // the built-in price table is in USD: in euros no call has a price, as status says
                        "currency: EUR",
                        "providers:",
                        "  - name: sim",
                        "    kind: openai",
                        "    match:",
                        "      urls: [\"" + sim.apiBaseUrl() + "/\"]",
                        "    limits:",
                        "      - id: sim-rpm",
                        "        dimension: requests",
                        "        capacity: 20",
                        "        window: 1s",
                        "limits:",
                        "  - id: documented-daily",
                        "    dimension: requests",
                        "    capacity: 100000",
                        "    window: 1d",
                        "    enforced: false",
                        "tenants:",
                        "  - name: alpha",
                        "  - name: beta",
                        ""),
                StandardCharsets.UTF_8);
        app = ForkedApp.of(SteadyTrafficApp.class)
                .withAgent("config=" + config)
                .args(sim.apiBaseUrl(), 120, 2, "alpha", "beta")
                .start();
        connector = connectLikeJConsole(app.pid());
        jmx = connector.getMBeanServerConnection();
        await("the agent's MXBeans").atMost(Duration.ofSeconds(20)).until(() -> jmx.isRegistered(GOVERNOR));
    }

    @AfterEach
    void stopService() throws Exception {
        if (connector != null) {
            connector.close();
        }
        if (app != null) {
            app.kill();
            app.process().waitFor(10, TimeUnit.SECONDS);
        }
        if (sim != null) {
            sim.close();
        }
        Files.deleteIfExists(config);
    }

    @Test
    void anOperatorReadsTunesPausesAndResumesALiveService() throws Exception {
        // Reading: the beans follow the live traffic.
        await().atMost(Duration.ofSeconds(20)).until(() -> sim.ledger().counts().admitted() >= 40);
        assertThat(jmx.getAttribute(GOVERNOR, "Mode")).isEqualTo("enforce");
        assertThat((Long) jmx.getAttribute(GOVERNOR, "Admitted")).isGreaterThanOrEqualTo(40);
        assertThat(jmx.getAttribute(RPM, "Capacity")).isEqualTo(20L);
        assertThat(jmx.getAttribute(RPM, "Dimension")).isEqualTo("requests");
        assertThat((Double) jmx.getAttribute(RPM, "Utilisation")).isGreaterThan(0.0);
        assertThat((Long) jmx.getAttribute(name("dev.sluice:type=Tenant,name=alpha"), "Admitted"))
                .isPositive();
        assertThat((Long) jmx.getAttribute(name("dev.sluice:type=Provider,name=sim"), "Calls"))
                .isPositive();
        assertThat(jmx.getAttribute(name("dev.sluice:type=Limit,name=documented-daily"), "Enforced"))
                .isEqualTo(false);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> (Integer) jmx.getAttribute(name("dev.sluice:type=TrafficClass,name=default"), "QueueDepth")
                        > 0);

        // Tuning: a lower capacity applies to the next admission; the provider sees the slower pace.
        long atTwenty = admittedDuring(Duration.ofSeconds(2));
        jmx.setAttribute(RPM, new Attribute("Capacity", 4L));
        assertThat(jmx.getAttribute(RPM, "Capacity")).isEqualTo(4L);
        Thread.sleep(300); // calls admitted just before the change are still arriving
        long atFour = admittedDuring(Duration.ofSeconds(2));
        assertThat(atTwenty).as("admitted in 2 s at 20/s").isLessThanOrEqualTo(60L);
        assertThat(atFour).as("admitted in 2 s at 4/s").isBetween(4L, 14L);
        assertThat(atTwenty)
                .as("admitted in 2 s at 20/s, against %s at 4/s", atFour)
                .isGreaterThan(2 * atFour);
        assertThat((Double) jmx.getAttribute(name("dev.sluice:type=TrafficClass,name=default"), "WaitP95Millis"))
                .isPositive();
        jmx.setAttribute(RPM, new Attribute("Capacity", 20L));

        // Emergency stop: beta's calls are rejected with 'paused'; alpha's go on.
        assertThat((String) jmx.invoke(
                        GOVERNOR, "pauseTenant", new Object[] {"beta"}, new String[] {String.class.getName()}))
                .contains("beta paused");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(app.stdoutSoFar()).contains("OUTCOME beta rejected:paused"));
        // a beta call already waiting in the queue when the pause landed may still go in the next moment
        Instant stopped = Instant.now().plusMillis(500);
        await().atMost(Duration.ofSeconds(10)).until(() -> admittedSince("alpha", stopped) >= 10);
        assertThat(arrivedSince("beta", stopped))
                .as("beta calls reaching the provider")
                .isZero();
        ObjectName beta = name("dev.sluice:type=Tenant,name=beta");
        assertThat(jmx.getAttribute(beta, "Paused")).isEqualTo(true);
        assertThat((Long) jmx.getAttribute(beta, "Rejected")).isPositive();
        assertThat(rejectionsByReason().get("paused")).isPositive();
        assertThat((String[]) jmx.getAttribute(GOVERNOR, "PausedTenants")).containsExactly("beta");

        // Resume: beta's calls reach the provider again.
        jmx.invoke(GOVERNOR, "resumeTenant", new Object[] {"beta"}, new String[] {String.class.getName()});
        Instant resumed = Instant.now();
        await().atMost(Duration.ofSeconds(10)).until(() -> admittedSince("beta", resumed) >= 3);
        assertThat(jmx.getAttribute(beta, "Paused")).isEqualTo(false);

        // The commands an operator types.
        String list = cli("status");
        assertThat(list)
                .contains("Local JVMs running the Sluice agent")
                .contains(Long.toString(app.pid()))
                .contains("SteadyTrafficApp");
        String status = cli("status", Long.toString(app.pid()));
        assertThat(status)
                .contains("Sluice ")
                .contains("in JVM " + app.pid())
                .contains("mode enforce")
                .contains("sim-rpm")
                .contains("requests/1s")
                .containsPattern("\\[[#.]{20}]")
                .contains("NOT ENFORCED")
                .contains("alpha")
                .contains("beta")
                .contains("default")
                .contains("PROVIDER")
                .contains("rejected")
                .contains("paused")
                .contains("PRICES: no prices (currency EUR)")
                .containsPattern("UNPRICED \\(charged nothing against budgets; price them under prices: or in"
                        + " pricesFile\\): sim/gpt-4o-mini \\(\\d+ calls\\)");
        javax.management.openmbean.TabularData unpriced =
                (javax.management.openmbean.TabularData) jmx.getAttribute(GOVERNOR, "UnpricedModels");
        assertThat(unpriced.size()).isEqualTo(1);
        assertThat((Long) jmx.getAttribute(GOVERNOR, "UnpricedCalls")).isPositive();
        String limits = cli("limits", Long.toString(app.pid()));
        assertThat(limits)
                .contains("Sluice limits at")
                .contains("LIMIT")
                .contains("sim-rpm")
                .containsPattern("documented-daily .* NOT ENFORCED")
                .contains("learned");
    }

    private long admittedDuring(Duration window) throws InterruptedException {
        Instant from = Instant.now();
        Thread.sleep(window.toMillis()); // a measuring window, not a wait for some state
        return sim.ledger().admittedInWindow(from, from.plus(window));
    }

    private long admittedSince(String tenant, Instant since) {
        return sim.ledger().forTenant(tenant).exchanges().stream()
                .filter(e -> e.admitted() && e.admittedAt().isAfter(since))
                .count();
    }

    private long arrivedSince(String tenant, Instant since) {
        return sim.ledger().forTenant(tenant).exchanges().stream()
                .map(Exchange::arrivedAt)
                .filter(t -> t.isAfter(since))
                .count();
    }

    private Map<String, Long> rejectionsByReason() throws Exception {
        TabularData table = (TabularData) jmx.getAttribute(GOVERNOR, "RejectionsByReason");
        Map<String, Long> byReason = new HashMap<>();
        for (Object row : table.values()) {
            CompositeData r = (CompositeData) row;
            byReason.put((String) r.get("key"), (Long) r.get("value"));
        }
        return byReason;
    }

    /** {@code java -jar sluice-agent.jar <args>}, as an operator runs it; its output. */
    static String cli(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                ForkedApp.Jdk.JDK17.java(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-jar",
                ForkedApp.AGENT_JAR.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue())
                .as("exit code of %s; output:%n%s", String.join(" ", args), output)
                .isZero();
        return output;
    }

    /**
     * Attach, start the JVM's local management agent (if not yet), connect to it: what JConsole does.
     *
     * <p>Tried again while the JVM is still booting: the test attaches the moment the process is
     * forked, and a JDK 17 or 25 that runs any {@code -javaagent} (a no-op one too) answers a
     * management-agent request made before its module system is up with a {@code
     * NullPointerException} from {@code Modules.loadModule} (19 times in 20 for a no-op agent
     * attached at once; never 150 ms later). A user attaching to a running service does not meet it.
     */
    static JMXConnector connectLikeJConsole(long pid) {
        return await("the JVM accepting a JMX connection")
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(AttachOperationFailedException.class)
                .until(() -> attachAndConnect(pid), java.util.Objects::nonNull);
    }

    private static JMXConnector attachAndConnect(long pid) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        try {
            return JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()));
        } finally {
            vm.detach();
        }
    }

    static ObjectName name(String name) {
        try {
            return new ObjectName(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
