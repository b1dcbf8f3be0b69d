package dev.sluice.core.jmx;

import static dev.sluice.core.jmx.JmxFixture.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Demand;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Governor;
import dev.sluice.core.Usage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.JMX;
import javax.management.MBeanNotificationInfo;
import javax.management.Notification;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A budget read and tuned over JMX as a console would, and its alerts received as notifications. */
class BudgetBeanTest {

    private static final String CONFIG = String.join(
            "\n",
            "coldStartWait: 0s",
            "currency: EUR",
            "providers:",
            "  - name: sim",
            "    kind: openai",
            "    match:",
            "      urls: [\"http://127.0.0.1:1/v1/\"]",
            "limits:",
            "  - id: team-budget",
            "    dimension: spend",
            "    amount: 2.00",
            "    period: day",
            "    zone: Europe/Paris",
            "    level: tenant",
            "    warnAt: 0.75",
            "");

    private final JmxFixture jmx;
    private final Governor governor;
    private final ObjectName name = SluiceMBeans.name("Budget", "team-budget");
    private final List<Notification> received = new CopyOnWriteArrayList<>();

    BudgetBeanTest() throws Exception {
        jmx = new JmxFixture(CONFIG);
        governor = jmx.runtime.governor();
        jmx.server.addNotificationListener(name, (n, handback) -> received.add(n), null, null);
    }

    @AfterEach
    void close() throws Exception {
        jmx.close();
    }

    private void spend(long reserveMicros, long costMicros) {
        governor.tryAdmit(
                        call("alpha"),
                        Demand.builder().spendMicros(reserveMicros).build())
                .permit()
                .settleAndRelease(Usage.builder()
                        .spendMicros(costMicros)
                        .reportedByProvider(true)
                        .build());
    }

    @Test
    void showsSpentReservedAndLeftInTheCurrencyAndSendsNotificationsOncePerPeriod() throws Exception {
        BudgetMXBean budget = JMX.newMXBeanProxy(jmx.server, name, BudgetMXBean.class);
        assertThat(budget.getCurrency()).isEqualTo("EUR");
        assertThat(budget.getPeriod()).isEqualTo("day");
        assertThat(budget.getAmount()).isEqualTo(2.00);
        assertThat(budget.getWarnAt()).isEqualTo(0.75);

        spend(600_000, 500_000);
        dev.sluice.core.Admission inFlight = governor.tryAdmit(
                call("alpha"), Demand.builder().spendMicros(300_000).build());
        assertThat(inFlight.isAdmitted()).isTrue();
        assertThat(budget.getSpent()).isEqualTo(0.5);
        assertThat(budget.getReserved()).isEqualTo(0.3);
        assertThat(budget.getLeft()).isEqualTo(1.2);
        assertThat(budget.getResetsAt()).endsWith("T23:00:00Z"); // midnight in Paris, in winter
        assertThat(budget.getBuckets()).hasSize(1);
        assertThat(budget.getSettledFromUsage()).isEqualTo(1);
        jmx.timer.advance(Duration.ZERO);
        assertThat(received).isEmpty();

        spend(1_000_000, 1_000_000); // 1.50 of 2.00: 75 %
        spend(100_000, 100_000);
        jmx.timer.advance(Duration.ZERO);
        assertThat(received).extracting(Notification::getType).containsExactly("sluice.budget.warning");
        Notification warning = received.get(0);
        assertThat(warning.getSource()).isEqualTo(name);
        assertThat(warning.getMessage()).contains("team-budget", "passed 75 %", "EUR");
        @SuppressWarnings("unchecked")
        Map<String, Object> data = (Map<String, Object>) warning.getUserData();
        assertThat(data).containsEntry("spent", 1.5).containsEntry("currency", "EUR");

        assertThat(governor.tryAdmit(
                                call("alpha"),
                                Demand.builder().spendMicros(300_000).build())
                        .rejection()
                        .decision())
                .isEqualTo(GatewayDecision.BUDGET_EXHAUSTED);
        jmx.timer.advance(Duration.ZERO);
        assertThat(received)
                .extracting(Notification::getType)
                .containsExactly("sluice.budget.warning", "sluice.budget.exhausted");
        assertThat(budget.getExhaustedRejections()).isEqualTo(1);

        MBeanNotificationInfo[] info = jmx.server.getMBeanInfo(name).getNotifications();
        assertThat(info[0].getNotifTypes()).contains("sluice.budget.warning", "sluice.budget.exhausted");
    }

    @Test
    void theAmountIsWritableAndAppliesAtOnce() throws Exception {
        BudgetMXBean budget = JMX.newMXBeanProxy(jmx.server, name, BudgetMXBean.class);
        spend(1_900_000, 1_900_000);
        assertThat(governor.tryAdmit(
                                call("alpha"),
                                Demand.builder().spendMicros(500_000).build())
                        .isAdmitted())
                .isFalse();
        budget.setAmount(3.0);
        assertThat(budget.getAmount()).isEqualTo(3.0);
        assertThat(budget.getLeft()).isEqualTo(1.1);
        assertThat(governor.tryAdmit(
                                call("alpha"),
                                Demand.builder().spendMicros(500_000).build())
                        .isAdmitted())
                .isTrue();
    }
}
