package dev.sluice.core;

import static dev.sluice.config.Dimension.CONCURRENCY;
import static dev.sluice.config.Dimension.OUTPUT_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The permits that still hold something: the lock-free stack of settlements waiting to be applied,
 * and the lease list the reaper walks oldest first.
 *
 * <p>The structure itself is tested on a ledger of its own. A settlement can only be asked for
 * through a permit, and a permit hands it to its governor's ledger, so what applying it gives back
 * is tested on the ledger of a governor, through what the governor shows.
 */
class PermitLedgerTest extends GovernorFixture {

    private final PermitLedger ledger = new PermitLedger();

    // ------------------------------------------------------------------ the stack, on its own

    @Test
    void eachPushReportsHowManySettlementsWaitWithIt() {
        assertThat(ledger.pendingDepth()).isZero();
        assertThat(ledger.push(unlinkedPermit())).isEqualTo(1);
        assertThat(ledger.push(unlinkedPermit())).isEqualTo(2);
        assertThat(ledger.push(unlinkedPermit())).isEqualTo(3);
        assertThat(ledger.pendingDepth()).isEqualTo(3);
    }

    @Test
    void pushesFromManyThreadsAtOnceAreNeitherLostNorCountedTwice() throws InterruptedException {
        int threads = 4;
        int each = 2_000;
        Set<Integer> depths = ConcurrentHashMap.newKeySet();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> pushers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<Permit> mine = new ArrayList<>();
            for (int i = 0; i < each; i++) {
                mine.add(unlinkedPermit());
            }
            Thread pusher = new Thread(() -> {
                awaitQuietly(start);
                for (Permit p : mine) {
                    depths.add(ledger.push(p));
                }
            });
            pusher.start();
            pushers.add(pusher);
        }
        start.countDown();
        for (Thread pusher : pushers) {
            pusher.join();
        }

        assertThat(ledger.pendingDepth()).isEqualTo(threads * each);
        assertThat(depths).hasSize(threads * each).allMatch(d -> d >= 1 && d <= threads * each);
    }

    @Test
    void aDrainTakesTheWholeStackAndAnEmptyOneHasNothingToGiveBack() {
        CountingClock wall = new CountingClock();
        assertThat(ledger.drain(clock.nanoTime(), wall, new GovernorStats())).isFalse();

        ledger.push(unlinkedPermit());
        ledger.push(unlinkedPermit());
        assertThat(ledger.drain(clock.nanoTime(), wall, new GovernorStats())).isTrue();

        assertThat(ledger.pendingDepth()).isZero();
        assertThat(ledger.drain(clock.nanoTime(), wall, new GovernorStats())).isFalse();
    }

    @Test
    void aDrainReadsTheWallClockOnlyWhenAWindowedBucketNeedsItAndThenOnce() {
        CountingClock wall = new CountingClock();
        ledger.push(unlinkedPermit());
        ledger.drain(clock.nanoTime(), wall, new GovernorStats());
        assertThat(wall.epochReads).isZero();

        for (int i = 0; i < 3; i++) {
            ledger.push(windowedPermit());
        }
        ledger.drain(clock.nanoTime(), wall, new GovernorStats());
        assertThat(wall.epochReads).isEqualTo(1);
    }

    // ------------------------------------------------------------------ the lease list, on its own

    @Test
    void leasesAreListedOldestFirst() {
        Permit first = unlinkedPermit();
        Permit second = unlinkedPermit();
        Permit third = unlinkedPermit();
        ledger.append(first);
        ledger.append(second);
        ledger.append(third);

        assertThat(ledger.oldest()).isSameAs(first);
        assertThat(leases()).containsExactly(first, second, third);
        assertThat(ledger.outstanding()).isEqualTo(3);
    }

    @Test
    void removingALeaseAnywhereKeepsTheOthersInOrder() {
        Permit first = unlinkedPermit();
        Permit second = unlinkedPermit();
        Permit third = unlinkedPermit();
        Permit fourth = unlinkedPermit();
        ledger.append(first);
        ledger.append(second);
        ledger.append(third);
        ledger.append(fourth);

        ledger.remove(second); // from the middle
        assertThat(leases()).containsExactly(first, third, fourth);
        ledger.remove(first); // the oldest
        assertThat(ledger.oldest()).isSameAs(third);
        ledger.remove(fourth); // the newest
        assertThat(leases()).containsExactly(third);
        assertThat(ledger.outstanding()).isEqualTo(1);
        assertThat(second.inLeaseList).isFalse();

        ledger.remove(third);
        assertThat(ledger.oldest()).isNull();
        assertThat(ledger.outstanding()).isZero();

        ledger.append(second); // an emptied list takes leases again
        assertThat(leases()).containsExactly(second);
    }

    // ------------------------------------------------------------------ settlements, on a governor's ledger

    @Test
    void aSettlementWaitsForTheNextLockHolderAndGivesBackWhatWasNotUsed() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000));
        Permit permit = governor.tryAdmit(callOfTenantA(), outputTokens(800)).permit();

        permit.settle(usedOutputTokens(200));
        assertThat(governor.ledger.pendingDepth()).isEqualTo(1);

        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(800);
        assertThat(governor.ledger.pendingDepth()).isZero();
    }

    @Test
    void aSettlementAppliedAtOnceIsNotQueued() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000), concurrency(1));
        Permit permit = governor.tryAdmit(callOfTenantA(), outputTokens(800)).permit();

        permit.settleAndRelease(usedOutputTokens(200)); // the lock is free: applied by this thread

        assertThat(governor.ledger.pendingDepth()).isZero();
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(800);
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);
    }

    @Test
    void aPermitStaysOutstandingUntilBothItsSettlementAndItsReleaseAreApplied() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000), concurrency(1));
        Permit permit = governor.tryAdmit(callOfTenantA(), outputTokens(800)).permit();

        permit.settle(usedOutputTokens(200)); // the response headers: the stream still holds its slot
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(800);
        assertThat(governor.controls().outstandingPermits()).isEqualTo(1);
        assertThat(governor.controls().inFlightByLimit()).containsOnlyKeys("conc", "out");

        permit.releaseConcurrency(); // the stream ended: queued again, for the release alone
        assertThat(governor.ledger.pendingDepth()).isEqualTo(1);
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(800); // not refunded a second time
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.controls().inFlightByLimit()).isEmpty();
    }

    @Test
    void aReleaseQueuedBeforeAnInlineSettlementIsNotAppliedTwice() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000), concurrency(2));
        governor.tryAdmit(callOfTenantA(), outputTokens(100)); // another call holds a slot and 100 tokens
        Permit permit = governor.tryAdmit(callOfTenantA(), outputTokens(800)).permit();

        permit.releaseConcurrency(); // queued
        permit.settleAndRelease(usedOutputTokens(200)); // applied inline, release included
        assertThat(governor.ledger.pendingDepth()).isEqualTo(1); // the queued request is still on the stack

        // the drain finds both applied already
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(1_000 - 100 - 200);
        assertThat(governor.controls().outstandingPermits()).isEqualTo(1);
    }

    @Test
    void aPermitIsSettledExactlyOnceWhicheverWayItIsAsked() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000), concurrency(1));
        Permit permit = governor.tryAdmit(callOfTenantA(), outputTokens(800)).permit();

        assertThat(permit.settle(usedOutputTokens(200))).isTrue();
        assertThat(permit.settleAndRelease(usedOutputTokens(0))).isFalse();
        assertThat(permit.settleAsReserved()).isFalse();
        assertThat(permit.cancel()).isFalse();

        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(800);
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);
        assertThat(governor.stats().settled()).isEqualTo(1);
    }

    @Test
    void aSettlementThatGivesCapacityBackAdmitsTheCallWaitingForIt() {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000));
        Permit permit = governor.tryAdmit(callOfTenantA(), outputTokens(1_000)).permit();
        CompletableFuture<Admission> waiting = governor.admitAsync(callOfTenantA(), outputTokens(500), 0);
        assertThat(waiting).isNotDone();

        permit.settle(usedOutputTokens(200));

        assertThat(waiting).isDone();
        assertThat(waiting.join().isAdmitted()).isTrue();
    }

    @Test
    void settlementsFromManyThreadsAreEachAppliedOnce() throws InterruptedException {
        governor(perMinute("out", OUTPUT_TOKENS, 1_000_000), concurrency(10_000));
        int threads = 4;
        int each = 1_000;
        List<List<Permit>> permits = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<Permit> mine = new ArrayList<>();
            for (int i = 0; i < each; i++) {
                mine.add(governor.tryAdmit(callOfTenantA(), outputTokens(100)).permit());
            }
            permits.add(mine);
        }
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger firsts = new AtomicInteger();
        List<Thread> settlers = new ArrayList<>();
        for (List<Permit> mine : permits) {
            Thread settler = new Thread(() -> {
                awaitQuietly(start);
                for (Permit p : mine) {
                    if (p.settleAndRelease(usedOutputTokens(40))) {
                        firsts.incrementAndGet();
                    }
                    p.settle(usedOutputTokens(1)); // too late: already settled
                }
            });
            settler.start();
            settlers.add(settler);
        }
        start.countDown();
        for (Thread settler : settlers) {
            settler.join();
        }

        assertThat(firsts).hasValue(threads * each);
        assertThat(governor.controls().available(OUTPUT_TOKENS)).isEqualTo(1_000_000 - threads * each * 40L);
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(10_000);
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.ledger.pendingDepth()).isZero();
    }

    // ------------------------------------------------------------------ leases, on a governor's ledger

    @Test
    void leasesRunOutOldestFirst() {
        governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .leaseTimeout(Duration.ofSeconds(30))
                .limit(concurrency(2))
                .build();
        governor.tryAdmit(callOfTenantA(), outputTokens(0)); // never settled, never released
        assertThat(governor.controls().outstandingPermits()).isEqualTo(1);
        timer.advance(Duration.ofSeconds(10));
        governor.tryAdmit(callOfTenantA(), outputTokens(0)); // neither
        assertThat(governor.controls().available(CONCURRENCY)).isZero();

        timer.advance(Duration.ofSeconds(20)); // the first lease runs out
        assertThat(governor.controls().outstandingPermits()).isEqualTo(1);
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);

        timer.advance(Duration.ofSeconds(10)); // and then the second
        assertThat(governor.controls().outstandingPermits()).isZero();
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(2);
        assertThat(governor.stats().leaseExpired()).isEqualTo(2);
    }

    @Test
    void aSettledAndReleasedPermitLeavesTheLeaseListAndIsNeverExpired() {
        governor = Governor.builder()
                .clock(clock)
                .timer(timer)
                .leaseTimeout(Duration.ofSeconds(30))
                .limit(concurrency(1))
                .build();
        Permit permit = governor.tryAdmit(callOfTenantA(), outputTokens(0)).permit();
        permit.settleAndRelease(Usage.NONE);

        timer.advance(Duration.ofSeconds(60));

        assertThat(governor.stats().leaseExpired()).isZero();
        assertThat(governor.controls().available(CONCURRENCY)).isEqualTo(1);
    }

    // ------------------------------------------------------------------ fixtures

    /** A permit that stands for no call and holds nothing, for the ledger's own structure. */
    private static Permit unlinkedPermit() {
        return new Permit(
                null, 0, null, null, new Bucket[0], null, null, false, null, -1, 0, 0, Long.MAX_VALUE, null, null);
    }

    /** Like {@link #unlinkedPermit()}, but charged in windows, as a windowed bucket's permit is. */
    private static Permit windowedPermit() {
        return new Permit(
                null,
                0,
                null,
                null,
                new Bucket[0],
                null,
                new long[0],
                true,
                null,
                -1,
                0,
                0,
                Long.MAX_VALUE,
                null,
                null);
    }

    private List<Permit> leases() {
        List<Permit> all = new ArrayList<>();
        for (Permit p = ledger.oldest(); p != null; p = p.leaseNext) {
            all.add(p);
        }
        return all;
    }

    private static LimitSpec perMinute(String id, dev.sluice.config.Dimension d, long capacity) {
        return LimitSpec.perWindow(id, d, capacity, Duration.ofMinutes(1));
    }

    private static LimitSpec concurrency(long slots) {
        return LimitSpec.builder("conc", CONCURRENCY, slots).build();
    }

    private static Demand outputTokens(long n) {
        return Demand.builder().outputTokens(n).build();
    }

    private static Usage usedOutputTokens(long n) {
        return Usage.builder().outputTokens(n).build();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Wall-clock reads are counted: a drain reads it only when a settlement needs it. */
    private final class CountingClock implements Clock {
        int epochReads;

        @Override
        public long nanoTime() {
            return clock.nanoTime();
        }

        @Override
        public long epochMillis() {
            epochReads++;
            return clock.epochMillis();
        }
    }
}
