package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Tenants sharing one saturated provider limit, on a fake clock: each tenant runs a number of
 * closed-loop callers (admit, hold for the call's latency, settle, again). The figures printed are
 * the ones recorded in docs/benchmarks.md.
 */
class FairnessScenarioTest {

    private static final Duration LATENCY = Duration.ofMillis(100);

    /** 1 000 tokens per second; a call of 100 tokens. */
    private static LimitSpec providerLimit() {
        return LimitSpec.builder("provider-tpm", Dimension.TOTAL_TOKENS, 10_000)
                .window(Duration.ofSeconds(10))
                .mirrorsProvider(false)
                .build();
    }

    /** A closed-loop load of one tenant, counting what it was admitted. */
    private static final class Tenant {
        final String name;
        final String trafficClass;
        final int callers;
        final long tokensPerCall;
        long admittedTokens;
        long admittedInWindow;
        final List<Long> waitsNanos = new ArrayList<>();
        int rejected;
        boolean active = true;

        Tenant(String name, String trafficClass, int callers, long tokensPerCall) {
            this.name = name;
            this.trafficClass = trafficClass;
            this.callers = callers;
            this.tokensPerCall = tokensPerCall;
        }
    }

    private final FakeClock clock = new FakeClock();
    private final ManualTimer timer = new ManualTimer(clock);
    private long measureFromNanos = Long.MAX_VALUE;
    private long measureToNanos = Long.MAX_VALUE;

    private void run(Governor governor, Tenant tenant) {
        for (int i = 0; i < tenant.callers; i++) {
            call(governor, tenant);
        }
    }

    private void call(Governor governor, Tenant tenant) {
        if (!tenant.active) {
            timer.schedule(() -> call(governor, tenant), LATENCY.toNanos());
            return;
        }
        CallContext context = CallContext.builder("openai")
                .tenant(tenant.name)
                .trafficClass(tenant.trafficClass)
                .build();
        Demand demand = Demand.builder()
                .inputTokens(tenant.tokensPerCall / 2)
                .outputTokens(tenant.tokensPerCall - tenant.tokensPerCall / 2)
                .build();
        Consumer<Admission> onAdmission = a -> {
            if (!a.isAdmitted()) {
                tenant.rejected++;
                timer.schedule(() -> call(governor, tenant), LATENCY.toNanos());
                return;
            }
            long now = clock.nanoTime();
            tenant.waitsNanos.add(a.permit().waitedNanos());
            tenant.admittedTokens += tenant.tokensPerCall;
            if (now >= measureFromNanos && now < measureToNanos) {
                tenant.admittedInWindow += tenant.tokensPerCall;
            }
            timer.schedule(
                    () -> {
                        a.permit()
                                .settle(Usage.builder()
                                        .inputTokens(tenant.tokensPerCall / 2)
                                        .outputTokens(tenant.tokensPerCall - tenant.tokensPerCall / 2)
                                        .build());
                        a.permit().releaseConcurrency();
                        call(governor, tenant);
                    },
                    LATENCY.toNanos());
        };
        governor.admitAsync(context, demand, 0).thenAccept(onAdmission);
    }

    private static double jain(List<Tenant> tenants) {
        double sum = 0;
        double squares = 0;
        for (Tenant t : tenants) {
            sum += t.admittedInWindow;
            squares += (double) t.admittedInWindow * t.admittedInWindow;
        }
        return sum * sum / (tenants.size() * squares);
    }

    private void measure(Duration warmUp, Duration length) {
        timer.advance(warmUp);
        measureFromNanos = clock.nanoTime();
        measureToNanos = measureFromNanos + length.toNanos();
        timer.advance(length);
    }

    private static long p99(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.isEmpty() ? 0 : sorted.get((int) Math.ceil(0.99 * sorted.size()) - 1);
    }

    private static Map<String, Long> shares(List<Tenant> tenants) {
        Map<String, Long> m = new LinkedHashMap<>();
        tenants.forEach(t -> m.put(t.name, t.admittedInWindow));
        return m;
    }

    @Test
    void fourEqualTenantsShareASaturatedLimitEvenly() {
        Governor governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .limit(providerLimit())
                .build();
        List<Tenant> tenants = List.of(
                new Tenant("a", "batch", 2, 100),
                new Tenant("b", "batch", 2, 100),
                new Tenant("c", "batch", 2, 100),
                new Tenant("d", "batch", 2, 100));
        tenants.forEach(t -> run(governor, t));
        measure(Duration.ofSeconds(20), Duration.ofSeconds(60));
        double index = jain(tenants);
        System.out.printf("scenario a (1:1:1:1 callers): Jain %.4f, tokens %s%n", index, shares(tenants));
        assertThat(index).isGreaterThanOrEqualTo(0.99);
        governor.close();
    }

    @Test
    void oneTenantOfferingEightTimesTheLoadGetsNoMoreThanItsShare() {
        Governor governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .limit(providerLimit())
                .build();
        List<Tenant> tenants = List.of(
                new Tenant("heavy", "batch", 16, 100),
                new Tenant("b", "batch", 2, 100),
                new Tenant("c", "batch", 2, 100),
                new Tenant("d", "batch", 2, 100));
        tenants.forEach(t -> run(governor, t));
        measure(Duration.ofSeconds(20), Duration.ofSeconds(60));
        double index = jain(tenants);
        System.out.printf("scenario a (8:1:1:1 callers): Jain %.4f, tokens %s%n", index, shares(tenants));
        assertThat(index).isGreaterThanOrEqualTo(0.99);
        // and the limit itself was used: 1 000 tokens a second
        long total = tenants.stream().mapToLong(t -> t.admittedInWindow).sum();
        assertThat(total).isBetween(58_000L, 61_000L);
        governor.close();
    }

    @Test
    void weightsThreeToOneGiveSharesOfSeventyFiveAndTwentyFive() {
        Governor governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .limit(providerLimit())
                .tenantWeight("gold", 3)
                .tenantWeight("bronze", 1)
                .build();
        Tenant gold = new Tenant("gold", "batch", 4, 100);
        Tenant bronze = new Tenant("bronze", "batch", 4, 100);
        run(governor, gold);
        run(governor, bronze);
        measure(Duration.ofSeconds(20), Duration.ofSeconds(60));
        double goldShare = 100.0 * gold.admittedInWindow / (gold.admittedInWindow + bronze.admittedInWindow);
        System.out.printf("scenario b (weights 3:1): shares %.1f / %.1f%n", goldShare, 100 - goldShare);
        assertThat(goldShare).isBetween(72.0, 78.0);
        governor.close();
    }

    @Test
    void anInteractiveTenantWithinItsGuaranteeIsServedFastWhileBatchSaturates() {
        Governor governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .limit(providerLimit())
                .tenant("assistant", 1, 0.2)
                .tenant("reports", 1, 0)
                .build();
        // batch: large calls, many callers, far more than the limit
        Tenant batch = new Tenant("reports", "batch", 12, 400);
        // interactive: a call of 500 tokens every 3 s = 167 tokens/s, within its 200 tokens/s
        // guarantee; without the guarantee each call would wait 500 ms for its tokens to refill
        Tenant interactive = new Tenant("assistant", "interactive", 1, 500);
        run(governor, batch);
        measureFromNanos = clock.nanoTime() + Duration.ofSeconds(20).toNanos();
        measureToNanos = measureFromNanos + Duration.ofSeconds(60).toNanos();
        for (long t = 0; t < 80_000; t += 3_000) {
            timer.schedule(
                    () -> oneInteractiveCall(governor, interactive),
                    Duration.ofMillis(t).toNanos());
        }
        timer.advance(Duration.ofSeconds(81));
        long p99 = p99(interactive.waitsNanos);
        System.out.printf(
                "scenario c (batch saturating, interactive within its guarantee): interactive calls %d,"
                        + " p99 wait %.1f ms, deadline misses %d; batch tokens %d%n",
                interactive.waitsNanos.size(), p99 / 1e6, interactive.rejected, batch.admittedInWindow);
        assertThat(interactive.rejected).isZero();
        assertThat(p99).isLessThanOrEqualTo(Duration.ofMillis(300).toNanos());
        assertThat(interactive.waitsNanos).hasSizeGreaterThan(25);
        // batch still gets the rest of the limit
        assertThat(batch.admittedInWindow).isGreaterThan(40_000);
        governor.close();
    }

    private void oneInteractiveCall(Governor governor, Tenant tenant) {
        CallContext context = CallContext.builder("openai")
                .tenant(tenant.name)
                .trafficClass(tenant.trafficClass)
                .build();
        governor.admitAsync(
                        context,
                        Demand.builder().inputTokens(250).outputTokens(250).build(),
                        0)
                .thenAccept(a -> {
                    if (!a.isAdmitted()) {
                        tenant.rejected++;
                        return;
                    }
                    tenant.waitsNanos.add(a.permit().waitedNanos());
                    timer.schedule(
                            () -> a.permit()
                                    .settle(Usage.builder()
                                            .inputTokens(250)
                                            .outputTokens(250)
                                            .build()),
                            LATENCY.toNanos());
                });
    }

    @Test
    void anIdleTenantsShareGoesToOthersAndComesBackWithinOneRefillPeriod() {
        Governor governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .limit(providerLimit())
                .build();
        Tenant sleeper = new Tenant("sleeper", "batch", 2, 100);
        Tenant busy = new Tenant("busy", "batch", 2, 100);
        sleeper.active = false;
        run(governor, sleeper);
        run(governor, busy);
        // while the sleeper is idle, the busy tenant uses the whole limit
        measure(Duration.ofSeconds(20), Duration.ofSeconds(20));
        long busyAlone = busy.admittedInWindow;
        System.out.printf("scenario d: busy tenant alone %d tokens in 20 s (limit 20 000)%n", busyAlone);
        assertThat(busyAlone).isBetween(19_000L, 20_100L);
        // the sleeper wakes up; after one refill period (10 s) both get half
        sleeper.active = true;
        busy.admittedInWindow = 0;
        measure(Duration.ofSeconds(10), Duration.ofSeconds(30));
        double sleeperShare = 100.0 * sleeper.admittedInWindow / (sleeper.admittedInWindow + busy.admittedInWindow);
        System.out.printf("scenario d: after waking, shares %.1f / %.1f%n", sleeperShare, 100 - sleeperShare);
        assertThat(sleeperShare).isBetween(47.0, 53.0);
        governor.close();
    }
}
