package dev.sluice.core.jmx;

import static dev.sluice.core.jmx.JmxFixture.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.Admission;
import dev.sluice.core.Demand;
import dev.sluice.core.Governor;
import dev.sluice.core.Permit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.MBeanNotificationInfo;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Governor bean's alerts as a console receives them: a listener on {@code dev.sluice:type=Governor}
 * hears each condition once when it starts and once when it clears, read from the live governor
 * on its timer (here a manual one on a fake clock), and only while someone listens.
 */
class GovernorAlertsTest {

    private static final String CONFIG = String.join(
            "\n",
            "coldStartWait: 0s",
            "providers:",
            "  - name: sim",
            "    kind: openai",
            "    match:",
            "      urls: [\"http://127.0.0.1:1/v1/\"]",
            "    limits:",
            "      - id: sim-one",
            "        dimension: requests",
            "        capacity: 1",
            "        window: 10m",
            "limits:",
            "  - id: tenant-tokens",
            "    dimension: total_tokens",
            "    capacity: 1000",
            "    window: 1d",
            "    level: tenant",
            "");

    private final JmxFixture jmx;
    private final Governor governor;
    private final ObjectName name = SluiceMBeans.governorName();
    private final List<Notification> received = new CopyOnWriteArrayList<>();
    private final NotificationListener listener = (n, handback) -> received.add(n);

    GovernorAlertsTest() throws Exception {
        jmx = new JmxFixture(CONFIG);
        governor = jmx.runtime.governor();
    }

    @AfterEach
    void close() throws Exception {
        jmx.close();
    }

    private void listen() throws Exception {
        jmx.server.addNotificationListener(name, listener, null, null);
        jmx.timer.advance(Duration.ZERO); // the first check: the baseline
    }

    private List<String> types() {
        List<String> types = new ArrayList<>();
        for (Notification n : received) {
            types.add(n.getType());
        }
        return types;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> data(Notification n) {
        return (Map<String, Object>) n.getUserData();
    }

    @Test
    void theGovernorBeanListsTheNotificationsItSends() throws Exception {
        MBeanNotificationInfo[] info = jmx.server.getMBeanInfo(name).getNotifications();
        assertThat(info).hasSize(1);
        assertThat(info[0].getNotifTypes())
                .containsExactly(
                        "sluice.alert.provider429Spike",
                        "sluice.alert.queueNearlyFull",
                        "sluice.alert.queueGrowing",
                        "sluice.alert.tokenPressure",
                        "sluice.alert.ungovernedCalls",
                        "sluice.alert.faults",
                        "sluice.alert.cleared");
    }

    @Test
    void aQueueNearlyFullIsNotifiedOnceWhenItStartsAndOnceWhenItClears() throws Exception {
        listen();
        assertThat(governor.tryAdmit(call("alpha"), Demand.oneRequest()).isAdmitted())
                .isTrue();
        jmx.trafficClass("batch").setMaxQueueDepth(5);
        List<CompletableFuture<Admission>> waiting = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waiting.add(governor.admitAsync(call("beta", "batch"), Demand.oneRequest(), 0));
        }
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        assertThat(jmx.trafficClass("batch").getQueueDepth()).isEqualTo(5);
        jmx.timer.advance(Duration.ofSeconds(45));
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        assertThat(received).as("it must hold a minute").isEmpty();
        jmx.timer.advance(Duration.ofSeconds(30));
        assertThat(types()).containsExactly("sluice.alert.queueNearlyFull");
        Notification fired = received.get(0);
        assertThat(fired.getSource()).isEqualTo(name);
        assertThat(fired.getMessage())
                .isEqualTo("SluiceQueueNearlyFull: traffic class batch has 5 calls waiting, above 80 % of its maximum"
                        + " depth 5 for 1m");
        assertThat(data(fired))
                .containsEntry("alert", "SluiceQueueNearlyFull")
                .containsEntry("severity", "warning")
                .containsEntry("class", "batch")
                .containsEntry("value", 5.0)
                .containsEntry("threshold", 0.8)
                .containsEntry("maxQueueDepth", 5L)
                .containsEntry("for", "1m")
                .containsEntry("since", "2026-11-29T10:00:15Z");

        jmx.timer.advance(Duration.ofMinutes(2));
        assertThat(received).as("once").hasSize(1);

        waiting.forEach(w -> w.cancel(true));
        jmx.timer.advance(Duration.ofSeconds(15));
        assertThat(types()).containsExactly("sluice.alert.queueNearlyFull", "sluice.alert.cleared");
        Notification cleared = received.get(1);
        assertThat(cleared.getMessage())
                .isEqualTo("SluiceQueueNearlyFull cleared: traffic class batch has 0 calls waiting, of its maximum"
                        + " depth 5");
        assertThat(data(cleared))
                .containsEntry("alert", "SluiceQueueNearlyFull")
                .containsEntry("cleared", "sluice.alert.queueNearlyFull")
                .containsEntry("firedAt", "2026-11-29T10:01:15Z");
        assertThat(cleared.getSequenceNumber()).isGreaterThan(fired.getSequenceNumber());
        assertThat(cleared.getTimeStamp()).isEqualTo(governor.clock().epochMillis());
    }

    @Test
    void aTokenLimitNearlyUsedForFiveMinutesIsNotified() throws Exception {
        listen();
        Permit permit = governor.tryAdmit(
                        call("alpha"), Demand.builder().inputTokens(950).build())
                .permit();
        jmx.timer.advance(Duration.ofMinutes(5));
        assertThat(received).isEmpty();
        jmx.timer.advance(Duration.ofSeconds(15));
        assertThat(types()).containsExactly("sluice.alert.tokenPressure");
        assertThat(received.get(0).getMessage())
                .isEqualTo("SluiceTokenPressure: token limit tenant-tokens is 94.7 % used, above 90 % for 5m");
        assertThat(data(received.get(0)))
                .containsEntry("limit", "tenant-tokens")
                .containsEntry("provider", "")
                .containsEntry("threshold", 0.9);

        permit.cancel(); // the call never went: its reservation comes back
        jmx.timer.advance(Duration.ofSeconds(15));
        assertThat(types()).containsExactly("sluice.alert.tokenPressure", "sluice.alert.cleared");
        assertThat(received.get(1).getMessage())
                .isEqualTo("SluiceTokenPressure cleared: token limit tenant-tokens is 0 % used");
    }

    @Test
    void aFaultInsideSluiceIsNotifiedAtOnceAndClearsFiveMinutesLater() throws Exception {
        listen();
        jmx.runtime.governance().onHookFault("a test", new IllegalStateException("broken hook"));
        jmx.timer.advance(Duration.ofSeconds(15));
        assertThat(types()).containsExactly("sluice.alert.faults");
        assertThat(received.get(0).getMessage())
                .isEqualTo("SluiceFaults: Sluice met 1 faults of its own in the last 5m; each let its call through"
                        + " (see the agent's log)");
        assertThat(data(received.get(0))).containsEntry("severity", "info");
        jmx.timer.advance(Duration.ofMinutes(5));
        assertThat(types()).containsExactly("sluice.alert.faults", "sluice.alert.cleared");
        assertThat(received.get(1).getMessage()).isEqualTo("SluiceFaults cleared: no fault in the last 5m");
    }

    @Test
    void checksRunOnlyWhileSomeoneListensAndCountFromTheirFirstCheck() throws Exception {
        GovernorAlerts alerts = jmx.beans.alerts();
        assertThat(alerts.running()).isFalse();
        jmx.runtime.governance().onHookFault("before anyone listened", new IllegalStateException());
        jmx.timer.advance(Duration.ofMinutes(1));

        NotificationListener second = (n, handback) -> {};
        listen();
        jmx.server.addNotificationListener(name, second, null, "handback");
        assertThat(alerts.running()).isTrue();
        jmx.timer.advance(Duration.ofMinutes(1));
        assertThat(received).as("what happened before is the baseline").isEmpty();

        jmx.server.removeNotificationListener(name, listener);
        assertThat(alerts.running()).isTrue();
        jmx.server.removeNotificationListener(name, second, null, "handback");
        assertThat(alerts.running()).isFalse();
        int pending = jmx.timer.pending();
        jmx.timer.advance(Duration.ofMinutes(10));
        assertThat(jmx.timer.pending()).as("no check scheduled any more").isLessThanOrEqualTo(pending);

        listen();
        assertThat(alerts.running()).isTrue();
        jmx.beans.close();
        assertThat(alerts.running()).isFalse();
    }
}
