package dev.sluice.core;

import static dev.sluice.config.Dimension.CONCURRENCY;
import static dev.sluice.config.Dimension.INPUT_TOKENS;
import static dev.sluice.config.Dimension.REQUESTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.quota.ProviderScope;
import dev.sluice.core.state.SavedState;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A burst set on a limit: the most let through at once, whatever an operator changes under load. */
class ConfiguredBurstTest extends GovernorFixture {

    private static LimitSpec rpm(long capacity, long burst) {
        return LimitSpec.builder("rpm", REQUESTS, capacity)
                .window(Duration.ofMinutes(1))
                .burst(burst)
                .build();
    }

    /** Admits one-request calls until one is refused; how many went. */
    private int admitAllNow() {
        int n = 0;
        while (governor.tryAdmit(callOfTenantA(), Demand.oneRequest()).isAdmitted()) {
            n++;
        }
        return n;
    }

    /** Offers a call every 10 ms for {@code d}; how many were admitted. */
    private int admittedOver(Duration d) {
        int n = 0;
        for (long t = 0; t < d.toMillis(); t += 10) {
            clock.advance(Duration.ofMillis(10));
            n += admitAllNow();
        }
        return n;
    }

    @Test
    void aBurstLetsAtMostItsSizeThroughAtOnceThenTheRate() {
        governor(rpm(600, 10));
        assertThat(admitAllNow()).isEqualTo(10);
        assertThat(admittedOver(Duration.ofSeconds(6))).isBetween(59, 61); // 10 a second
        clock.advance(Duration.ofMinutes(5));
        assertThat(admitAllNow()).isEqualTo(10); // idle for minutes: still 10 at once
    }

    @Test
    void aMirrorOfAProviderLimitKeepsItsTransitAllowanceInsideTheBurst() {
        governor(LimitSpec.builder("rpm", REQUESTS, 600)
                .window(Duration.ofMinutes(1))
                .provider("openai")
                .mirrorsProvider(true)
                .burst(10)
                .build());
        assertThat(admitAllNow()).isBetween(7, 10);
    }

    @Test
    void loweringACapacityUnderLoadGivesTheNewRateNotAFreshBucket() {
        governor(rpm(600, 0));
        admitAllNow();
        assertThat(admittedOver(Duration.ofSeconds(3))).isBetween(29, 31); // saturated at 10 a second
        governor.controls().setCapacity("rpm", 120);
        governor.controls().setBurst("rpm", 2);
        assertThat(admittedOver(Duration.ofSeconds(6))).isBetween(11, 14); // 2 a second
    }

    @Test
    void loweringACapacityOrABurstOnAnIdleBucketKeepsOnlyTheNewBurst() {
        governor(rpm(600, 0));
        governor.controls().setCapacity("rpm", 120);
        assertThat(admitAllNow()).isEqualTo(120); // the new burst is the new capacity: never the old 600
        clock.advance(Duration.ofMinutes(2));
        governor.controls().setBurst("rpm", 5);
        assertThat(admitAllNow()).isEqualTo(5);
        governor.controls().setBurst("rpm", 50);
        assertThat(admitAllNow()).isZero(); // a higher burst is room to refill to, not room given
        clock.advance(Duration.ofSeconds(10));
        assertThat(admitAllNow()).isEqualTo(20);
    }

    @Test
    void aCallLargerThanTheBurstWaitsForAFullBucketAndOwesTheRest() {
        governor(LimitSpec.builder("itpm", INPUT_TOKENS, 120_000)
                .window(Duration.ofMinutes(1))
                .burst(2_000)
                .build());
        Demand large = Demand.builder().inputTokens(5_000).build();
        assertThat(governor.tryAdmit(callOfTenantA(), large).isAdmitted()).isTrue();
        Demand small = Demand.builder().inputTokens(100).build();
        clock.advance(Duration.ofMillis(1_500)); // the 3,000 owed is repaid at 2,000 a second
        assertThat(governor.tryAdmit(callOfTenantA(), small).isAdmitted()).isFalse();
        clock.advance(Duration.ofMillis(100));
        assertThat(governor.tryAdmit(callOfTenantA(), small).isAdmitted()).isTrue();
        Admission tooLarge = governor.tryAdmit(
                callOfTenantA(), Demand.builder().inputTokens(130_000).build());
        assertThat(tooLarge.rejection().decision()).isEqualTo(GatewayDecision.NOT_ADMISSIBLE);
    }

    @Test
    void aBurstSetLiveIsCheckedLikeConfig() {
        governor(rpm(600, 10), LimitSpec.builder("slots", CONCURRENCY, 4).build());
        assertThatThrownBy(() -> governor.controls().setBurst("rpm", 601))
                .hasMessage("burst must be at most the capacity, 600, was 601");
        assertThatThrownBy(() -> governor.controls().setBurst("rpm", -1))
                .hasMessage("burst must be >= 0 (0: the capacity), was -1");
        assertThatThrownBy(() -> governor.controls().setBurst("slots", 2))
                .hasMessage("limit slots is a concurrency limit and has no burst; only token buckets have one");
        governor.controls().setBurst("rpm", 0);
        assertThat(governor.controls().limit("rpm").burst()).isEqualTo(600);
    }

    @Test
    void aLearnedBudgetLetsThroughNoMoreThanTheConfiguredBurstMirroringIt() {
        governor(LimitSpec.builder("openai-rpm", REQUESTS, 600)
                .window(Duration.ofMinutes(1))
                .provider("openai")
                .mirrorsProvider(true)
                .burst(10)
                .build());
        governor.learner()
                .learn(new ProviderAnswer(
                        callOfTenantA(), List.of(new LearnedBudget("requests", REQUESTS, 600, 599, 60_000))));
        assertThat(learnedBurst()).isEqualTo(10);
        governor.controls().setBurst("openai-rpm", 4);
        governor.learner()
                .learn(new ProviderAnswer(
                        callOfTenantA(), List.of(new LearnedBudget("requests", REQUESTS, 600, 599, 60_000))));
        assertThat(learnedBurst()).isEqualTo(4);
    }

    @Test
    void aRestoredBudgetComesBackNoFullerThanItsBurst() {
        ProviderScope scope = new ProviderScope("k", "openai/k/m", dev.sluice.core.quota.Guarantees.none());
        long now = clock.nanoTime();
        scope.restore(
                new SavedState.Budget("requests", REQUESTS, 600, true, 10, 60_000, 3, 0),
                600_000,
                now,
                clock.epochMillis());
        Bucket b = scope.learnedBuckets()[0];
        assertThat(b.limit().burst()).isEqualTo(10);
        assertThat(b.room(now, clock.epochMillis())).isLessThanOrEqualTo(10);
    }

    private long learnedBurst() {
        for (ProviderScope s : governor.controls().providerScopes()) {
            for (Bucket b : s.learnedBuckets()) {
                return b.limit().burst();
            }
        }
        throw new AssertionError("nothing learned");
    }
}
