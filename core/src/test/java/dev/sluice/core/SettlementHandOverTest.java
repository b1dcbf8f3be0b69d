package dev.sluice.core;

import static dev.sluice.config.Dimension.CONCURRENCY;
import static dev.sluice.config.Dimension.INPUT_TOKENS;
import static dev.sluice.config.Dimension.OUTPUT_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.core.quota.FaultyBucket;
import dev.sluice.core.quota.LimitSpec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A thread settling a call never waits for the governor's lock, even when other calls wait for the
 * room it gives back (an event loop settles calls as their answers end): it leaves the settlement
 * to the lock's holder, which applies it as it unlocks, and the waiting call gets its turn then.
 * A settlement that fails to apply (a bug, a broken bucket) costs only its own permit: whoever
 * drains the queue neither fails nor drops the settlements queued behind it.
 */
class SettlementHandOverTest {

    private final FakeClock clock = new FakeClock();
    private final ManualTimer timer = new ManualTimer(clock);
    /** How many times the concurrency bucket throws when giving room back: none unless a test says. */
    private final AtomicInteger faults = new AtomicInteger();

    private final LockHoldingStore store =
            new LockHoldingStore(b -> b.limit().dimension() == CONCURRENCY ? new FaultyBucket(b, faults) : b);
    private final LockHoldingStore.Hold hold = new LockHoldingStore.Hold(store);
    private Governor governor;

    /** A governor allowing {@code slots} calls at once. */
    private void start(int slots) {
        governor = governorOn(store)
                .limit(LimitSpec.builder("conc", CONCURRENCY, slots).build())
                .build();
    }

    /** A governor allowing one call at once, whose permits' leases run out after a minute. */
    private void startWithOneMinuteLeases() {
        governor = governorOn(store)
                .leaseTimeout(Duration.ofMinutes(1))
                .limit(LimitSpec.builder("conc", CONCURRENCY, 1).build())
                .build();
    }

    private GovernorBuilder governorOn(LockHoldingStore placing) {
        return Governor.builder().clock(clock).timer(timer).store(placing);
    }

    @AfterEach
    void close() {
        governor.close();
    }

    private static CallContext call() {
        return CallContext.builder("openai").model("gpt-4o-mini").tenant("t").build();
    }

    @Test
    void aReleaseWhileAnotherThreadHoldsTheLockReturnsAtOnceAndTheHolderHandsTheRoomOn() throws Exception {
        start(1);
        Permit first = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        CompletableFuture<Admission> second = governor.admitAsync(call(), Demand.oneRequest(), 0);
        assertThat(second).isNotDone();
        hold.begin();

        first.settle(Usage.NONE);
        first.releaseConcurrency();
        boolean releasedWhileLocked = hold.isHeld();
        boolean admittedWhileLocked = second.isDone();
        hold.end();

        assertThat(releasedWhileLocked)
                .as("the release returned while another thread held the lock")
                .isTrue();
        assertThat(admittedWhileLocked)
                .as("nothing is decided without the lock")
                .isFalse();
        assertThat(second)
                .as("the holder applied the release as it unlocked: no timer tick, no new admission")
                .isDone();
        assertThat(second.join().isAdmitted()).isTrue();
        second.join().permit().releaseConcurrency();
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);
    }

    @Test
    void aSettlementThatFailsCostsOnlyItsOwnSlotAndNotTheThreadThatAppliesIt() throws Exception {
        start(2);
        Permit first = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        Permit second = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        CompletableFuture<Admission> third = governor.admitAsync(call(), Demand.oneRequest(), 0);
        assertThat(third).isNotDone();
        hold.begin();

        faults.set(1); // the first release applied throws
        first.settle(Usage.NONE);
        first.releaseConcurrency();
        second.settle(Usage.NONE);
        second.releaseConcurrency();
        hold.end(); // the holder applies both as it unlocks: it must not fail for them

        assertThat(faults.get()).as("the fault was hit").isZero();
        assertThat(third)
                .as("the other release was applied: the waiting call has its slot")
                .isDone();
        assertThat(third.join().isAdmitted()).isTrue();
    }

    @Test
    void aReleaseThatFailedIsAppliedWhenItsLeaseRunsOut() {
        startWithOneMinuteLeases();
        Permit first = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        faults.set(1); // its release throws once

        first.settle(Usage.NONE);
        first.releaseConcurrency();
        assertThat(governor.tryAdmit(call(), Demand.oneRequest()).isAdmitted())
                .as("the admission drained the queue, the release failed: the slot is still held")
                .isFalse();
        assertThat(faults.get()).as("the fault was hit").isZero();

        timer.advance(Duration.ofMinutes(2));
        assertThat(governor.controls().available(CONCURRENCY))
                .as("the lease ran out: the release is applied again, the slot comes back")
                .isEqualTo(1);
        assertThat(governor.tryAdmit(call(), Demand.oneRequest()).isAdmitted()).isTrue();
    }

    @Test
    void aReleaseThatFailedOnTheSettlingThreadIsAppliedWhenItsLeaseRunsOut() {
        startWithOneMinuteLeases();
        Permit first = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        faults.set(1); // its release throws once

        // the lock is free: the settling thread applies the settlement itself, and the fault
        // reaches it (the exchange engine's observer catches it and keeps the call going)
        assertThatThrownBy(() -> first.settleAndRelease(Usage.NONE)).isInstanceOf(IllegalStateException.class);
        assertThat(faults.get()).as("the fault was hit").isZero();
        assertThat(governor.tryAdmit(call(), Demand.oneRequest()).isAdmitted())
                .as("the slot is still held")
                .isFalse();

        timer.advance(Duration.ofMinutes(2));
        assertThat(governor.controls().available(CONCURRENCY))
                .as("the lease ran out: the release is applied again, the slot comes back")
                .isEqualTo(1);
    }

    @Test
    void aSettlementThatFailedPartWayResumesAtLeaseExpiryWithoutSettlingAnyBucketTwice() {
        // the input bucket settles first, then the output bucket throws: the retry at lease expiry
        // must settle only the output bucket, or the input bucket gets its refund twice
        LockHoldingStore outputFails =
                new LockHoldingStore(b -> b.limit().dimension() == OUTPUT_TOKENS ? new FaultyBucket(b, faults) : b);
        long capacity = 1_000_000;
        governor = governorOn(outputFails)
                .leaseTimeout(Duration.ofMinutes(1))
                .limit(LimitSpec.builder("in", INPUT_TOKENS, capacity)
                        .window(Duration.ofDays(1))
                        .build())
                .limit(LimitSpec.builder("out", OUTPUT_TOKENS, capacity)
                        .window(Duration.ofDays(1))
                        .build())
                .build();
        Permit first = governor.tryAdmit(call(), tokens(500_000, 1_000)).permit();
        Permit second = governor.tryAdmit(call(), tokens(400_000, 1_000)).permit();
        assertThat(governor.controls().available(INPUT_TOKENS)).isEqualTo(100_000);
        faults.set(1); // the output bucket's refund throws once

        catchThrowable(() -> first.settleAndRelease(Usage.NONE)); // on this thread or a drain's: either way
        assertThat(faults.get()).as("the fault was hit").isZero();
        assertThat(governor.controls().available(INPUT_TOKENS))
                .as("the input bucket was refunded before the output bucket failed")
                .isEqualTo(600_000);

        timer.advance(Duration.ofMinutes(2)); // both leases run out; the second is kept as reserved
        long refill = capacity * 2 / (24 * 60); // two minutes of a day's window, give or take one
        assertThat(governor.controls().available(INPUT_TOKENS))
                .as("the failed settlement resumed where it stopped: no second refund of the input bucket")
                .isBetween(600_000 + refill - 2, 600_000 + refill + 2);
        assertThat(governor.controls().available(OUTPUT_TOKENS))
                .as("the output bucket got its refund at lease expiry")
                .isBetween(capacity - 1_000, capacity);
        assertThat(second.isSettled()).isTrue();
    }

    private static Demand tokens(long in, long out) {
        return Demand.builder().inputTokens(in).outputTokens(out).build();
    }
}
