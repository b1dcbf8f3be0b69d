package dev.sluice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.ConfigSources;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.core.jmx.SluiceMBeans;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StatusViewTest {

    private Path config;
    private SluiceRuntime runtime;
    private SluiceMBeans beans;
    private final MBeanServer server = MBeanServerFactory.newMBeanServer();

    @AfterEach
    void stop() throws Exception {
        if (beans != null) {
            beans.close();
            runtime.close();
            Files.deleteIfExists(config);
        }
    }

    @Test
    void statusShowsLimitsWithBarsTenantsQueuesAndProviders() throws Exception {
        config = Files.createTempFile("sluice-status-", ".yaml");
        Files.writeString(config, """
                providers:
                  - name: sim
                    kind: openai
                    match:
                      urls: ["http://127.0.0.1:1/v1/"]
                    limits:
                      - id: sim-rpm
                        dimension: requests
                        capacity: 4
                        window: 1m
                        burst: 1m
                limits:
                  - id: documented
                    dimension: requests
                    capacity: 100
                    window: 1d
                    enforced: false
                tenants:
                  - name: alpha
                    weight: 2
                  - name: beta
                """);
        runtime = SluiceRuntime.start(
                ConfigLoader.load(ConfigSources.builder().file(config).build()));
        beans = SluiceMBeans.register(runtime, server, null);
        CallContext alpha = CallContext.builder("sim")
                .model("gpt-4o-mini")
                .tenant("alpha")
                .apiKeyId("k_1")
                .build();
        runtime.governor().tryAdmit(alpha, Demand.oneRequest());
        runtime.governor().tryAdmit(alpha, Demand.oneRequest());
        runtime.governor().controls().pauseTenant("beta");
        runtime.governor().tryAdmit(CallContext.builder("sim").tenant("beta").build(), Demand.oneRequest());

        // a connection to the configured provider's endpoint that no governed HTTP client opened
        dev.sluice.bootstrap.Bridge.install(runtime.governance());
        try {
            dev.sluice.bootstrap.Connections.opening(java.net.InetSocketAddress.createUnresolved("127.0.0.1", 1));
        } finally {
            dev.sluice.bootstrap.Bridge.install(null);
        }

        String view = StatusView.render(server, "Sluice test in JVM 42");

        assertThat(view).startsWith("Sluice test in JVM 42, mode enforce, config file " + config);
        assertThat(view).contains("admitted 2  rejected 1 (paused 1)  waiting 0  in flight 2");
        assertThat(view).contains("PAUSED by an operator: tenants beta");
        assertThat(view)
                .contains("NOT GOVERNED (these calls bypass Sluice): 127.0.0.1 via an unknown client (1 connection)");
        assertThat(line(view, "sim-rpm"))
                .contains("requests/1m")
                .contains("[##########..........]  50%")
                .contains("2/4");
        assertThat(line(view, "documented")).contains("requests/1d").contains("NOT ENFORCED");
        assertThat(line(view, "alpha")).contains("2.0").contains(" 2 ");
        assertThat(line(view, "beta ")).endsWith("PAUSED");
        assertThat(line(view, "interactive")).contains("300 ms");
        assertThat(line(view, "sim ")).contains(" - ").endsWith("0%");
    }

    @Test
    void aBarHasOneMarkPerFivePercentAndStaysFullBeyondTheCapacity() {
        assertThat(StatusView.bar(0)).isEqualTo("[....................]");
        assertThat(StatusView.bar(0.26)).isEqualTo("[#####...............]");
        assertThat(StatusView.bar(1.7)).isEqualTo("[####################]");
    }

    private static String line(String text, String start) {
        for (String l : text.split("\n")) {
            if (l.startsWith(start)) {
                return l;
            }
        }
        throw new AssertionError("no line starting with '" + start + "' in\n" + text);
    }

    @Test
    void statusShowsEachBudgetsSpendReservedAndLeft() throws Exception {
        config = Files.createTempFile("sluice-status-", ".yaml");
        Files.writeString(config, """
                coldStartWait: 0s
                currency: EUR
                providers:
                  - name: sim
                    kind: openai
                    match:
                      urls: ["http://127.0.0.1:1/v1/"]
                limits:
                  - id: daily-budget
                    dimension: spend
                    amount: 10
                    period: day
                """);
        runtime = SluiceRuntime.start(
                ConfigLoader.load(ConfigSources.builder().file(config).build()));
        beans = SluiceMBeans.register(runtime, server, null);
        CallContext call =
                CallContext.builder("sim").model("gpt-4o-mini").tenant("alpha").build();
        runtime.governor()
                .tryAdmit(call, Demand.builder().spendMicros(3_000_000).build())
                .permit()
                .settleAndRelease(dev.sluice.core.Usage.builder()
                        .spendMicros(2_500_000)
                        .reportedByProvider(true)
                        .build());
        runtime.governor()
                .tryAdmit(call, Demand.builder().spendMicros(1_000_000).build());

        String view = StatusView.render(server, "Sluice test in JVM 42");
        assertThat(view).contains("BUDGET ", "RESETS AT", "daily-budget", "day", "2.50/10.00 EUR", "1.00", "6.50");
    }
}
