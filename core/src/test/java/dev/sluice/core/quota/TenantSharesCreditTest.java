package dev.sluice.core.quota;

import static dev.sluice.core.quota.QuotaFixtures.learnedBucket;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link TenantShares} directly; {@code dev.sluice.core.TenantSharesTest} runs it through the governor. */
class TenantSharesCreditTest {

    private final FakeClock clock = new FakeClock();
    /** 6,000 a minute (100 a second); a mirror, so it holds 5,975 when full. */
    private final Bucket budget = learnedBucket(6_000, Duration.ofMinutes(1), 0, clock);

    private final Bucket[] learned = {budget};
    private final TenantShares shares = new TenantShares();

    /** Leaves {@code room} in the budget. */
    private void roomLeft(long room) {
        budget.reserve(5_975 - room, clock.nanoTime(), clock.epochMillis());
    }

    private void waiting(String tenant) {
        shares.waiting(tenant, 1, learned, clock.nanoTime(), clock.epochMillis());
    }

    private TenantShares.Wait waitFor(String tenant, long amount) {
        return shares.waitFor(tenant, 1, -1, learned, new long[] {amount}, clock.nanoTime(), clock.epochMillis());
    }

    private void admitted(String tenant, long amount) {
        budget.reserve(amount, clock.nanoTime(), clock.epochMillis());
        shares.admitted(tenant, 1, learned, new long[] {amount}, clock.nanoTime(), clock.epochMillis());
    }

    @Test
    void aTenantAloneIsServedByTheLaneAndHeldForNobody() {
        waiting("search");
        assertThat(shares.laneServes("search")).isTrue();
        assertThat(shares.laneServes("chat")).isFalse();
        assertThat(waitFor("search", 1_000)).isNull();
        roomLeft(500); // the bucket's own room is the governor's to check: nothing is shared here
        assertThat(waitFor("search", 1_000)).isNull();
        assertThat(shares.activeTenants()).isEqualTo(1);
    }

    @Test
    void callsWithoutATenantShareOneName() {
        waiting(null);
        assertThat(shares.laneServes(null)).isTrue();
        assertThat(shares.laneServes("search")).isFalse();
    }

    @Test
    void aSecondTenantClosesTheLane() {
        waiting("search");
        waiting("chat");
        assertThat(shares.laneServes("search")).isFalse();
        assertThat(shares.laneServes("chat")).isFalse();
        assertThat(shares.activeTenants()).isEqualTo(2);
    }

    /** A full bucket is shared too: the tenant joining holds its share of what nobody holds, at once. */
    @Test
    void aTenantJoiningHoldsItsShareOfTheUnheldRoomAtOnce() {
        roomLeft(1_000);
        waiting("search");
        waiting("chat"); // holds all 1,000: its share of the burst is 3,000
        TenantShares.Wait wait = waitFor("search", 500);
        assertThat(wait).isNotNull();
        assertThat(wait.bucket).isSameAs(budget);
        assertThat(wait.needed).isEqualTo(500);
        assertThat(wait.free).isZero();
        assertThat(waitFor("chat", 500)).isNull();
    }

    /**
     * Half of what comes back is free while the other's credit fills: 50 a second. A call one
     * short looks again when that came; a longer wait is looked at again within a tenth of a
     * second (tenants go quiet, credits shrink as tenants join, and nothing says so).
     */
    @Test
    void aWaitIsTheTimeTheFreeRoomTakesToGrowLookedAtAgainWithinATenthOfASecond() {
        roomLeft(1_000);
        waiting("search");
        waiting("chat");
        assertThat(waitFor("search", 1).nanos).isEqualTo(20_000_000L);
        assertThat(waitFor("search", 500).nanos).isEqualTo(TenantShares.LOOK_AGAIN_NANOS);
    }

    /**
     * A full bucket refills no more: room the others hold between their calls while this one
     * waits would be capacity lost. Once the bucket is nearly full, they never hold what the call
     * needs, so it goes before the bucket fills up.
     */
    @Test
    void othersNeverHoldWhatAWaitingCallNeedsOnceTheBucketIsNearlyFull() {
        roomLeft(5_960);
        shares.waiting("search", 1, learned, clock.nanoTime(), clock.epochMillis());
        shares.waiting("chat", 199, learned, clock.nanoTime(), clock.epochMillis()); // holds all 5,960
        // holds no more than the ceiling less the call, a unit and a tenth of a second's refill: 5,954
        assertThat(waitFor("search", 10).free).isEqualTo(6);
        clock.advance(Duration.ofMillis(40)); // 4 more
        assertThat(waitFor("search", 10)).isNull();
    }

    @Test
    void aCallLargerThanHalfItsTenantsShareOfTheBurstIsNotHeld() {
        roomLeft(1_000);
        waiting("search");
        waiting("chat");
        assertThat(waitFor("search", 1_501)).isNull();
    }

    @Test
    void anAdmissionSpendsTheTenantsOwnCreditFirst() {
        roomLeft(4_000);
        waiting("search");
        waiting("chat"); // holds its share: 3,000
        admitted("chat", 1_000); // out of its credit: it holds 2,000 of the 3,000 left
        assertThat(waitFor("search", 1_500).free).isEqualTo(1_000);
    }

    @Test
    void aTenantQuietForLongerThanTheGracePeriodIsDroppedAndItsCreditFreed() {
        roomLeft(1_000);
        waiting("search");
        waiting("chat");
        clock.advance(Duration.ofMillis(2_001));
        assertThat(waitFor("search", 500)).isNull();
        assertThat(shares.activeTenants()).isEqualTo(1);
        assertThat(shares.laneServes("search")).isTrue();
    }

    @Test
    void aTenantWithACallOutStaysActiveAndGoesAGracePeriodAfterItEnds() {
        roomLeft(1_000);
        waiting("search");
        admitted("chat", 100);
        clock.advance(Duration.ofSeconds(5));
        waiting("search");
        assertThat(shares.activeTenants()).isEqualTo(2);
        shares.ended("chat", clock.nanoTime());
        clock.advance(Duration.ofMillis(1_999));
        waiting("search");
        assertThat(shares.activeTenants()).isEqualTo(2);
        clock.advance(Duration.ofMillis(2));
        waiting("search");
        assertThat(shares.activeTenants()).isEqualTo(1);
    }

    @Test
    void aTenantsShareShrinksAsOthersJoin() {
        roomLeft(5_000);
        waiting("search");
        waiting("chat"); // its half: 3,000
        waiting("batch"); // thirds: chat keeps 2,000, batch holds 2,000, 1,000 is left free
        assertThat(waitFor("search", 1_000)).isNull();
    }

    @Test
    void aHeavierTenantHoldsMoreOfTheBucket() {
        roomLeft(4_000);
        shares.waiting("search", 1, learned, clock.nanoTime(), clock.epochMillis());
        shares.waiting("chat", 3, learned, clock.nanoTime(), clock.epochMillis()); // three quarters: 4,500 at most
        TenantShares.Wait wait =
                shares.waitFor("search", 1, -1, learned, new long[] {700}, clock.nanoTime(), clock.epochMillis());
        assertThat(wait.free).isZero();
    }

    @Test
    void creditsNeverHoldMoreThanTheRoom() {
        roomLeft(4_000);
        waiting("search");
        waiting("chat"); // 3,000 of 4,000
        budget.reserve(2_000, clock.nanoTime(), clock.epochMillis()); // 2,000 left: chat's credit shrinks to it
        assertThat(waitFor("search", 100).free).isZero();
        clock.advance(Duration.ofMillis(1_500)); // 150 back, 75 of it to chat's credit: 75 free
        assertThat(waitFor("search", 70)).isNull();
    }

    @Test
    void atMostTwoHundredFiftySixTenantsAreFollowed() {
        for (int i = 0; i < TenantShares.MAX_TENANTS; i++) {
            waiting("t" + i);
        }
        assertThat(shares.activeTenants()).isEqualTo(TenantShares.MAX_TENANTS);
        assertThat(waitFor("one-too-many", 10)).isNull();
        assertThat(shares.admitted("one-too-many", 1, learned, new long[] {10}, clock.nanoTime(), clock.epochMillis()))
                .isFalse();
        assertThat(shares.activeTenants()).isEqualTo(TenantShares.MAX_TENANTS);
    }
}
