package dev.sluice.core.jmx;

import static dev.sluice.core.jmx.JmxFixture.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.Dimension;
import dev.sluice.core.Admission;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Governor;
import dev.sluice.core.LearnedBudget;
import dev.sluice.core.Permit;
import dev.sluice.core.ProviderAnswer;
import dev.sluice.core.Usage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.management.Descriptor;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.ObjectName;
import javax.management.openmbean.OpenType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SluiceMBeansTest {

    private final JmxFixture jmx;
    private final Governor governor;

    SluiceMBeansTest() throws Exception {
        jmx = new JmxFixture();
        governor = jmx.runtime.governor();
    }

    @AfterEach
    void close() throws Exception {
        jmx.close();
    }

    private Admission admit(String tenant) {
        return governor.tryAdmit(call(tenant), Demand.oneRequest());
    }

    @Test
    void registersTheGovernorEveryConfiguredLimitClassAndTenantUnderStableNames() throws Exception {
        assertThat(jmx.server.queryNames(new ObjectName("dev.sluice:*"), null))
                .extracting(ObjectName::toString)
                .contains(
                        "dev.sluice:type=Governor",
                        "dev.sluice:type=Limit,name=sim-rpm",
                        "dev.sluice:type=Limit,name=tenant-tpm",
                        "dev.sluice:type=Limit,name=documented",
                        "dev.sluice:type=TrafficClass,name=default",
                        "dev.sluice:type=TrafficClass,name=interactive",
                        "dev.sluice:type=TrafficClass,name=batch",
                        "dev.sluice:type=Tenant,name=alpha",
                        "dev.sluice:type=Tenant,name=beta",
                        "dev.sluice:type=Provider,name=sim");
    }

    @Test
    void registersTheStoreWithTheOtherBeansOnlyWhenItIsShared() throws Exception {
        ObjectName store = new ObjectName("dev.sluice:type=Store");
        assertThat(jmx.server.isRegistered(store)).as("a local store").isFalse();
        JmxFixture fleet = new JmxFixture("store: redis://127.0.0.1:1\n");
        try {
            assertThat(fleet.server.isRegistered(store)).isTrue();
            assertThat((String) fleet.server.getAttribute(store, "Store")).contains("127.0.0.1:1");
        } finally {
            fleet.close();
        }
        assertThat(fleet.server.isRegistered(store))
                .as("unregistered with the others")
                .isFalse();
    }

    @Test
    void everyAttributeHasAnOpenTypeAndADescriptionSoConsolesRenderIt() throws Exception {
        for (ObjectName name : jmx.server.queryNames(new ObjectName("dev.sluice:*"), null)) {
            MBeanInfo info = jmx.server.getMBeanInfo(name);
            for (MBeanAttributeInfo a : info.getAttributes()) {
                Descriptor d = a.getDescriptor();
                assertThat(d.getFieldValue("openType"))
                        .as(name + " " + a.getName())
                        .isInstanceOf(OpenType.class);
                assertThat(a.getDescription()).as(name + " " + a.getName()).isNotBlank();
                jmx.server.getAttribute(name, a.getName()); // every attribute reads without failing
            }
        }
        MBeanInfo governorInfo = jmx.server.getMBeanInfo(SluiceMBeans.governorName());
        assertThat(governorInfo.getOperations()).anySatisfy(op -> {
            assertThat(op.getName()).isEqualTo("pauseTenant");
            assertThat(op.getSignature()[0].getName()).isEqualTo("tenant");
        });
    }

    @Test
    void theGovernorShowsWhatEachRetryLayerWouldHaveDone() {
        dev.sluice.bootstrap.RetryLayers.passed("test-layer");
        dev.sluice.bootstrap.RetryLayers.declined("test-layer");
        dev.sluice.bootstrap.RetryLayers.declined("test-layer");
        assertThat(jmx.governor().getRetryLayers())
                .containsEntry("test-layer.passed", 1L)
                .containsEntry("test-layer.declined", 2L);
    }

    @Test
    void aLimitShowsCapacityAvailableReservedAndCallsInFlight() {
        Permit first = admit("alpha").permit();
        admit("alpha");
        admit("beta");
        LimitMXBean rpm = jmx.limit("sim-rpm");
        assertThat(rpm.getCapacity()).isEqualTo(10);
        assertThat(rpm.getAvailable()).isEqualTo(7);
        assertThat(rpm.getInFlight()).isEqualTo(3);
        assertThat(rpm.getUtilisation()).isEqualTo(0.3);
        assertThat(rpm.getDimension()).isEqualTo("requests");
        assertThat(rpm.getWindow()).isEqualTo("1m");
        assertThat(rpm.getSource()).isEqualTo("configured");

        first.settleAndRelease(Usage.builder().build());
        assertThat(rpm.getInFlight()).isEqualTo(2);
        assertThat(rpm.getAvailable()).isEqualTo(7); // a request stays counted in its window
    }

    @Test
    void loweringACapacityAppliesToTheNextAdmission() {
        jmx.limit("sim-rpm").setCapacity(2);

        assertThat(admit("beta").isAdmitted()).isTrue();
        assertThat(admit("beta").isAdmitted()).isTrue();
        Admission refused = admit("beta");
        assertThat(refused.isAdmitted()).isFalse();
        assertThat(refused.rejection().limiter()).isEqualTo(Dimension.REQUESTS);
        assertThat(refused.rejection().retryAfterMillis()).isEqualTo(30_000); // refills at 2 a minute now
        assertThat(jmx.limit("sim-rpm").getCapacity()).isEqualTo(2);
        assertThat(jmx.limit("sim-rpm").getRejectionsByReason()).containsEntry("rejected_locally", 1L);
        assertThat(governor.controls().limit("sim-rpm").capacity()).isEqualTo(2);
    }

    @Test
    void aRampRefusesAnInvalidTuningWithAMessageNamingTheSettingAndChangesNothing() throws Exception {
        try (JmxFixture ramped = new JmxFixture(JmxFixture.CONFIG.replace(
                "    limits:\n      - id: sim-rpm",
                "    ramp: {growth: 1.5, interval: 1s}\n    limits:\n      - id: sim-rpm"))) {
            RampMXBean ramp = ramped.ramp("sim");
            assertThatThrownBy(() -> ramp.setGrowth(1)).hasStackTraceContaining("growth must be > 1, was 1.0");
            assertThatThrownBy(() -> ramp.setFloor(0)).hasStackTraceContaining("floor must be > 0");
            assertThatThrownBy(() -> ramp.setRejectedShareThreshold(1.5)).hasStackTraceContaining("rejectedShare");
            assertThatThrownBy(() -> ramp.setOnTrip("back"))
                    .hasStackTraceContaining("onTrip must be hold or step_back");
            assertThatThrownBy(() -> ramp.setLatencyP95ThresholdMillis(-1)).hasStackTraceContaining("latencyP95");
            // milliseconds whose nanoseconds would overflow are refused, not wrapped to a negative threshold
            assertThatThrownBy(() -> ramp.setQueueWaitP95ThresholdMillis(Long.MAX_VALUE))
                    .hasStackTraceContaining("queueWaitP95 must be between 0 (not watched) and");
            assertThat(ramp.getGrowth()).isEqualTo(1.5);
            assertThat(ramp.getOnTrip()).isEqualTo("hold");
            assertThat(ramp.getQueueWaitP95ThresholdMillis()).isZero();

            ramp.setQueueWaitP95ThresholdMillis(250);
            assertThat(ramp.getQueueWaitP95ThresholdMillis()).isEqualTo(250);
        }
    }

    @Test
    void anInvalidValueIsRefusedWithAMessageAndChangesNothing() {
        assertThatThrownBy(() -> jmx.limit("sim-rpm").setCapacity(0))
                .hasStackTraceContaining("capacity must be > 0, was 0");
        assertThat(governor.controls().limit("sim-rpm").capacity()).isEqualTo(10);

        assertThatThrownBy(() -> jmx.governor().setMode("fast"))
                .hasStackTraceContaining("mode must be enforce, observe or off; was 'fast'");
        assertThat(jmx.governor().getMode()).isEqualTo("enforce");

        jmx.tenant("alpha").setGuaranteedShare(0.6);
        assertThatThrownBy(() -> jmx.tenant("beta").setGuaranteedShare(0.5)).hasStackTraceContaining("more than 1");
        assertThat(jmx.tenant("beta").getGuaranteedShare()).isZero();
        assertThat(jmx.tenant("alpha").getGuaranteedShare()).isEqualTo(0.6);

        assertThatThrownBy(() -> jmx.trafficClass("interactive").setMaxWaitMillis(-1))
                .hasStackTraceContaining("maxWaitMillis must be > 0, was -1");
        assertThat(jmx.trafficClass("interactive").getMaxWaitMillis()).isEqualTo(300);

        assertThatThrownBy(() -> jmx.tenant("alpha").setWeight(0)).hasStackTraceContaining("weight must be > 0");
        assertThat(jmx.tenant("alpha").getWeight()).isEqualTo(2.0);
    }

    @Test
    void tuningTenantsClassesAndModeReachesTheLiveGovernor() {
        jmx.tenant("alpha").setWeight(5);
        jmx.tenant("beta").setGuaranteedShare(0.5);
        jmx.trafficClass("batch").setMaxWaitMillis(1_500);
        jmx.governor().setMode("observe");
        jmx.governor().setFailMode("closed");

        assertThat(governor.controls().tenantWeight("alpha")).isEqualTo(5.0);
        assertThat(governor.controls().guarantees().share("beta")).isEqualTo(0.5);
        assertThat(governor.controls().trafficClasses().get("batch").maxWaitNanos())
                .isEqualTo(1_500_000_000L);
        assertThat(governor.mode().configName()).isEqualTo("observe");
        assertThat(jmx.runtime.governance().failMode().configName()).isEqualTo("closed");
    }

    @Test
    void aCallBeyondTheNewQueueDepthIsRefusedWithQueueFull() {
        jmx.limit("sim-rpm").setCapacity(2);
        admit("beta");
        admit("beta");
        jmx.trafficClass("batch").setMaxQueueDepth(1);

        CompletableFuture<Admission> waiting = governor.admitAsync(call("carol", "batch"), Demand.oneRequest(), 0);
        CompletableFuture<Admission> overflow = governor.admitAsync(call("beta", "batch"), Demand.oneRequest(), 0);

        assertThat(waiting).isNotDone();
        assertThat(overflow.join().rejection().decision()).isEqualTo(GatewayDecision.QUEUE_FULL);
        assertThat(jmx.trafficClass("batch").getQueueDepth()).isEqualTo(1);
        assertThat(jmx.trafficClass("default").getQueueDepth()).isZero();
        assertThat(jmx.governor().getWaiting()).isEqualTo(1); // a read of the governor adds carol's bean
        assertThat(jmx.tenant("beta").getQueued()).isZero();
        assertThat(jmx.tenant("carol").getQueued()).isEqualTo(1);
        assertThat(jmx.governor().getRejectionsByReason()).containsEntry("queue_full", 1L);
        waiting.cancel(true);
    }

    @Test
    void aPausedTenantIsRejectedWithPausedUntilResumed() {
        assertThat(jmx.governor().pauseTenant("beta")).contains("beta paused");

        Admission refused = admit("beta");
        assertThat(refused.rejection().decision()).isEqualTo(GatewayDecision.PAUSED);
        assertThat(admit("alpha").isAdmitted()).isTrue();
        assertThat(jmx.tenant("beta").isPaused()).isTrue();
        assertThat(jmx.tenant("beta").getRejected()).isEqualTo(1);
        assertThat(jmx.governor().getPausedTenants()).containsExactly("beta");

        assertThat(jmx.tenant("beta").resume()).isEqualTo("tenant beta resumed");
        assertThat(admit("beta").isAdmitted()).isTrue();
        assertThat(jmx.governor().resumeTenant("beta")).isEqualTo("tenant beta was not paused");
    }

    @Test
    void pausingATenantNobodySawYetGivesItABeanAtOnce() {
        jmx.governor().pauseTenant("gamma");
        jmx.governor().getMode(); // any read brings the set of beans up to date
        assertThat(jmx.registered("Tenant", "gamma")).isTrue();
        assertThat(jmx.tenant("gamma").isPaused()).isTrue();
        assertThat(jmx.tenant("gamma").isConfigured()).isFalse();
        assertThatThrownBy(() -> jmx.tenant("gamma").setGuaranteedShare(0.1)).hasStackTraceContaining("not configured");
    }

    @Test
    void aPausedApiKeyIsRejectedWithPaused() {
        jmx.governor().pauseApiKey("k_abc");
        assertThat(admit("alpha").rejection().decision()).isEqualTo(GatewayDecision.PAUSED);
        jmx.governor().resumeApiKey("k_abc");
        assertThat(admit("alpha").isAdmitted()).isTrue();
    }

    @Test
    void tenantsSeenInCallsGetABeanWithTheirUse() {
        Permit p = governor.tryAdmit(
                        call("delta"),
                        Demand.builder().inputTokens(100).outputTokens(50).build())
                .permit();
        p.settleAndRelease(Usage.builder().inputTokens(90).outputTokens(30).build());
        jmx.governor().getAdmitted();
        assertThat(jmx.registered("Tenant", "delta")).isTrue();
        TenantMXBean delta = jmx.tenant("delta");
        assertThat(delta.getAdmitted()).isEqualTo(1);
        assertThat(delta.getInputTokens()).isEqualTo(90);
        assertThat(delta.getTotalTokens()).isEqualTo(120);
        assertThat(delta.getBuckets()).singleElement().satisfies(row -> {
            assertThat(row.getLimitId()).isEqualTo("tenant-tpm");
            assertThat(row.getScope()).isEqualTo("sluice/tenant=delta");
            assertThat(row.getCapacity()).isEqualTo(1000);
            assertThat(row.getAvailable()).isEqualTo(880);
        });
    }

    @Test
    void theLimitsTableIsRenderedFromTheLiveLimitsAndMarksWhatIsNotEnforced() {
        jmx.limit("sim-rpm").setCapacity(8);
        admit("alpha");
        String table = jmx.governor().describeLimits();

        assertThat(table).contains("3 configured, 0 learned");
        assertThat(line(table, "sim-rpm"))
                .contains("sim ")
                .contains("requests")
                .contains("1m")
                .contains(" 8 ")
                .contains(" 7 ")
                .contains("13%")
                .contains("configured")
                .doesNotContain("NOT ENFORCED");
        assertThat(line(table, "documented")).contains("NOT ENFORCED");
        assertThat(line(table, "tenant-tpm")).contains("sluice/tenant=alpha");

        jmx.limit("sim-rpm").setEnforced(false);
        assertThat(line(jmx.governor().describeLimits(), "sim-rpm")).contains("NOT ENFORCED");
    }

    @Test
    void anUnenforcedLimitNoLongerHoldsCallsBack() {
        jmx.limit("sim-rpm").setCapacity(1);
        admit("beta");
        assertThat(admit("beta").isAdmitted()).isFalse();
        jmx.limit("sim-rpm").setEnforced(false);
        assertThat(admit("beta").isAdmitted()).isTrue();
        assertThat(jmx.limit("sim-rpm").isEnforced()).isFalse();
    }

    @Test
    void recentDecisionsExplainTheLastRejections() {
        jmx.limit("sim-rpm").setCapacity(1);
        admit("beta");
        admit("beta");
        String[] decisions = jmx.governor().recentDecisions(5);
        assertThat(decisions).hasSize(1);
        assertThat(decisions[0])
                .contains("rejected_locally")
                .contains("tenant=beta")
                .contains("needs 1, 0 free");
        assertThatThrownBy(() -> jmx.governor().recentDecisions(0)).hasStackTraceContaining("n must be >= 1");
    }

    @Test
    void learnedLimitsGetBeansUpToACap() throws Exception {
        for (int k = 0; k < SluiceMBeans.MAX_LEARNED_LIMITS + 50; k++) {
            CallContext key = CallContext.builder("sim")
                    .model("gpt-4o-mini")
                    .tenant("alpha")
                    .apiKeyId("k_" + k)
                    .build();
            governor.learner()
                    .learn(new ProviderAnswer(
                            key, List.of(new LearnedBudget("requests", Dimension.REQUESTS, 500, 120, 60_000))));
        }
        jmx.governor().getMode();
        long learnedBeans = jmx.server.queryNames(new ObjectName("dev.sluice:type=Limit,*"), null).stream()
                .filter(n -> n.getKeyProperty("name").startsWith("sim/k_"))
                .count();
        assertThat(learnedBeans).isEqualTo(SluiceMBeans.MAX_LEARNED_LIMITS);
        assertThat(jmx.governor().describeLimits()).contains("sim/k_249/gpt-4o-mini:requests");
    }

    @Test
    void limitsLearnedFromProviderHeadersAppearWithWhatTheProviderSaid() {
        governor.learner()
                .learn(new ProviderAnswer(
                        call("alpha"), List.of(new LearnedBudget("requests", Dimension.REQUESTS, 500, 120, 60_000))));
        jmx.governor().getMode();

        String id = "sim/k_abc/gpt-4o-mini:requests";
        assertThat(jmx.registered("Limit", id)).isTrue();
        assertThat(SluiceMBeans.name("Limit", id).toString())
                .isEqualTo("dev.sluice:type=Limit,name=sim/k_abc/gpt-4o-mini_requests");
        LimitMXBean learned = jmx.limit(id);
        assertThat(learned.getId()).isEqualTo(id);
        assertThat(learned.getSource()).isEqualTo("learned");
        assertThat(learned.getProvider()).isEqualTo("sim");
        assertThat(learned.getProviderLimit()).isEqualTo(500);
        assertThat(learned.getProviderRemaining()).isEqualTo(120);
        assertThat(learned.getCapacity()).isEqualTo(10); // never above the configured limit it mirrors
        assertThat(learned.getAvailable()).isEqualTo(10);
        assertThat(jmx.limit("sim-rpm").getProviderLimit()).isEqualTo(500);
        assertThat(jmx.limit("sim-rpm").getProviderRemaining()).isEqualTo(120);
        assertThatThrownBy(() -> learned.setCapacity(50)).hasStackTraceContaining("learned from the provider");
        assertThat(jmx.governor().describeLimits())
                .contains("1 learned")
                .contains("provider: limit 500, remaining 120");

        ProviderMXBean sim = jmx.provider("sim");
        assertThat(sim.getScopeCount()).isEqualTo(1);
        assertThat(sim.getScopes()).singleElement().satisfies(row -> {
            assertThat(row.getApiKeyId()).isEqualTo("k_abc");
            assertThat(row.getModel()).isEqualTo("gpt-4o-mini");
            assertThat(row.getLearnedLimits()).isEqualTo(1);
        });
    }

    @Test
    void aProviderPauseShowsUntilWhen() {
        governor.learner()
                .pauseProviderScope(call("alpha"), Duration.ofSeconds(3).toNanos());
        ProviderMXBean sim = jmx.provider("sim");
        assertThat(sim.getPausedForMillis()).isEqualTo(3_000);
        assertThat(sim.getPausedUntil()).isEqualTo("2026-11-29T10:00:03Z");
        jmx.clock.advance(Duration.ofSeconds(4));
        assertThat(sim.getPausedForMillis()).isZero();
        assertThat(sim.getPausedUntil()).isEmpty();
    }

    @Test
    void closingUnregistersEveryBean() throws Exception {
        jmx.beans.close();
        assertThat(jmx.server.queryNames(new ObjectName("dev.sluice:*"), null)).isEmpty();
    }

    @Test
    void namesKeepOnlyWhatAnObjectNameHoldsUnquoted() {
        assertThat(SluiceMBeans.safe("a:b,c=d\"e*f?g")).isEqualTo("a_b_c_d_e_f_g");
        assertThat(SluiceMBeans.safe("")).isEqualTo("_");
    }

    private static String line(String table, String limitId) {
        for (String l : table.split("\n")) {
            if (l.startsWith(limitId + " ")) {
                return l;
            }
        }
        throw new AssertionError("no row for " + limitId + " in\n" + table);
    }
}
