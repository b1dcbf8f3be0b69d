package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.RampAction;
import dev.sluice.config.RampConfig;
import dev.sluice.core.quota.Ramp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A provider's ramp on a fake clock: growth per interval, health that holds or steps back, schedules. */
class RampTest extends GovernorFixture {

    private void governor(RampConfig ramp, double requestsPerSecond) {
        governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .ramp("openai", ramp, requestsPerSecond)
                .build();
    }

    private Ramp ramp() {
        return governor.controls().ramps().get(0);
    }

    /**
     * Offers calls at {@code perSecond} for {@code seconds}, each waiting in the queue for its turn
     * (each admitted one answered at once with {@code status} after {@code latency}); the calls
     * admitted in each second.
     */
    private List<Integer> offer(double perSecond, int seconds, int status, Duration latency) {
        return offer(perSecond, seconds, status, latency, -1);
    }

    /** As above; {@code waitedNanos} >= 0 is the queue wait each admitted call reports instead of its own. */
    private List<Integer> offer(double perSecond, int seconds, int status, Duration latency, long waitedNanos) {
        List<Integer> perEachSecond = new ArrayList<>();
        long gapNanos = (long) (1e9 / perSecond);
        AtomicInteger admitted = new AtomicInteger();
        for (int s = 0; s < seconds; s++) {
            admitted.set(0);
            for (long t = 0; t < 1_000_000_000L; t += gapNanos) {
                governor.admitAsync(
                                callOfTenantA(),
                                Demand.oneRequest(),
                                clock.nanoTime() + Duration.ofMinutes(10).toNanos())
                        .thenAccept(a -> {
                            if (a.isAdmitted()) {
                                admitted.incrementAndGet();
                                governor.rampAdmitted(
                                        "openai",
                                        waitedNanos >= 0
                                                ? waitedNanos
                                                : a.permit().waitedNanos());
                                governor.rampAnswered("openai", status, latency.toNanos());
                            }
                        });
                timer.advance(Duration.ofNanos(gapNanos));
            }
            perEachSecond.add(admitted.get());
        }
        return perEachSecond;
    }

    private List<Integer> offer(double perSecond, int seconds) {
        return offer(perSecond, seconds, 200, Duration.ofMillis(100));
    }

    @Test
    void aLoadThatJumpsTenfoldGrowsByTheFactorEachInterval() {
        governor(
                RampConfig.builder()
                        .growth(1.5)
                        .interval(Duration.ofSeconds(1))
                        .floor(5)
                        .build(),
                0);
        assertThat(offer(5, 4)).allSatisfy(n -> assertThat(n).isBetween(4, 6)); // a steady 5 a second goes
        List<Integer> jumped = offer(50, 6);
        assertThat(jumped.get(0)).as("the first second of the jump").isBetween(5, 9);
        for (int i = 1; i < jumped.size(); i++) {
            assertThat(jumped.get(i))
                    .as("second %d of the jump, after %d", i, jumped.get(i - 1))
                    .isLessThanOrEqualTo((int) Math.ceil(jumped.get(i - 1) * 1.5) + 1)
                    .isGreaterThan(jumped.get(i - 1));
        }
        assertThat(ramp().state()).isEqualTo(Ramp.State.RAMPING);
        assertThat(offer(50, 6).get(5)).as("later, the whole load").isBetween(45, 51);
    }

    @Test
    void aBuiltInRampLeavesTheFirstIntervalAloneThenPacesGrowthFromIt() {
        RampConfig builtIn = dev.sluice.config.ProviderConfig.builder("openai", dev.sluice.config.ProviderKind.OPENAI)
                .limit(dev.sluice.config.LimitConfig.of(
                        dev.sluice.config.Dimension.REQUESTS, 600, Duration.ofMinutes(1)))
                .build()
                .ramp();
        assertThat(builtIn.isBuiltIn()).isTrue();
        governor(builtIn, 10);
        assertThat(offer(40, 2)).allSatisfy(n -> assertThat(n).isBetween(39, 41)); // a cold start is not the ramp's
        offer(2, 60);
        assertThat(ramp().ceilingPerSecond()).as("half the limit at least").isGreaterThanOrEqualTo(5.0);
        List<Integer> jumped = offer(40, 2);
        assertThat(jumped.get(1)).as("a jump from 2 a second, a minute later").isBetween(5, 8);
    }

    @Test
    void aSteadyServiceIsNeverHeldBack() {
        governor(
                RampConfig.builder()
                        .growth(1.5)
                        .interval(Duration.ofSeconds(1))
                        .floor(20)
                        .build(),
                0);
        assertThat(offer(20, 5)).allSatisfy(n -> assertThat(n).isBetween(19, 21));
        assertThat(ramp().state()).isEqualTo(Ramp.State.STEADY);
        assertThat(ramp().ceilingPerSecond()).as("room to grow").isGreaterThan(22.0);
    }

    @Test
    void providerRefusalsStepTheCeilingBack() {
        governor(
                RampConfig.builder()
                        .growth(2)
                        .interval(Duration.ofSeconds(1))
                        .floor(10)
                        .rejectedShare(0.1)
                        .onTrip(RampAction.STEP_BACK)
                        .build(),
                0);
        offer(10, 3);
        offer(40, 3);
        double before = ramp().ceilingPerSecond();
        offer(40, 1, 429, Duration.ofMillis(100));
        assertThat(ramp().state()).isEqualTo(Ramp.State.STEPPING_BACK);
        assertThat(ramp().trippedBy()).isEqualTo("rejectedShare");
        assertThat(ramp().ceilingPerSecond()).isLessThan(before);
        assertThat(ramp().trips()).isEqualTo(1);
    }

    @Test
    void aSlowProviderHoldsTheCeilingWhereItIs() {
        governor(
                RampConfig.builder()
                        .growth(2)
                        .interval(Duration.ofSeconds(1))
                        .floor(10)
                        .latencyP95(Duration.ofSeconds(2))
                        .build(),
                0);
        offer(10, 3);
        offer(40, 1, 200, Duration.ofSeconds(5));
        double held = ramp().ceilingPerSecond();
        List<Integer> slow = offer(40, 3, 200, Duration.ofSeconds(5));
        assertThat(ramp().state()).isEqualTo(Ramp.State.HOLDING);
        assertThat(ramp().trippedBy()).isEqualTo("latencyP95");
        assertThat(ramp().ceilingPerSecond()).isEqualTo(held);
        assertThat(slow.get(2)).isLessThanOrEqualTo((int) Math.ceil(held) + 1);
    }

    @Test
    void queueWaitsTripTheRampOnlyWhenTheRampDidNotCauseThem() {
        governor(
                RampConfig.builder()
                        .growth(2)
                        .interval(Duration.ofSeconds(1))
                        .floor(10)
                        .queueWaitP95(Duration.ofMillis(500))
                        .build(),
                0);
        waitingCalls(40, 3); // over the ceiling: the waits are the ramp's own
        assertThat(ramp().trippedBy()).isEmpty();
        assertThat(ramp().state()).isEqualTo(Ramp.State.RAMPING);
        timer.advance(Duration.ofSeconds(3));
        waitingCalls(5, 2); // under the ceiling: something else made them wait
        assertThat(ramp().trippedBy()).isEqualTo("queueWaitP95");
        assertThat(ramp().state()).isEqualTo(Ramp.State.HOLDING);
    }

    /** Offers calls that each say they waited 2 s in the queue. */
    private void waitingCalls(double perSecond, int seconds) {
        offer(
                perSecond,
                seconds,
                200,
                Duration.ofMillis(100),
                Duration.ofSeconds(2).toNanos());
    }

    @Test
    void aScheduleRisesFromItsStartShareToTheWholeLimitWhileCallsCome() {
        governor(
                RampConfig.builder()
                        .startShare(0.1)
                        .over(Duration.ofSeconds(10))
                        .interval(Duration.ofSeconds(1))
                        .build(),
                20);
        assertThat(ramp().ceilingPerSecond()).isEqualTo(2.0);
        timer.advance(Duration.ofSeconds(30)); // no calls: the schedule waits for them
        assertThat(ramp().share()).isEqualTo(0.1);
        List<Integer> admitted = offer(20, 12);
        assertThat(admitted.get(0)).isBetween(2, 5);
        assertThat(admitted.get(5)).isBetween(10, 15);
        assertThat(admitted.get(11)).isBetween(19, 21);
        assertThat(ramp().state()).isEqualTo(Ramp.State.DONE);
    }
}
