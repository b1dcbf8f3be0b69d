package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Every permit that still holds something: the lease list the reaper walks (oldest first), the
 * permits' numbers, and the lock-free stack of settlements waiting to be applied. Apart from {@link #push}, used under the
 * governor's lock.
 */
final class PermitLedger {

    private final AtomicReference<Permit> pending = new AtomicReference<>();
    private Permit leaseHead;
    private Permit leaseTail;
    private int outstanding;
    private RuntimeException fault;
    /** The last permit number given. */
    private long lastId;

    /**
     * Queues a permit whose settlement or release was asked for. Any thread, no lock.
     *
     * @return the stack's depth with it: how many wait to be applied (see {@link Backlog})
     */
    int push(Permit p) {
        Permit head;
        do {
            head = pending.get();
            p.nextPending = head;
            p.pendingDepth = head == null ? 1 : head.pendingDepth + 1;
        } while (!pending.compareAndSet(head, p));
        return p.pendingDepth;
    }

    /** Whether settlements wait to be applied. Any thread, no lock. */
    boolean hasPending() {
        return pending.get() != null;
    }

    /** How many settlements wait to be applied (racy; for tests). */
    int pendingDepth() {
        Permit head = pending.get();
        return head == null ? 0 : head.pendingDepth;
    }

    /**
     * Applies every queued settlement and release. Lock held. Wall-clock time is read only if a
     * windowed bucket needs it.
     *
     * @return whether any capacity came back
     */
    boolean drain(long nowNanos, Clock clock, GovernorStats stats) {
        if (pending.get() == null) {
            return false; // a plain read: no atomic swap on the admission path when nothing is pending
        }
        Permit p = pending.getAndSet(null);
        long nowMillis = Long.MIN_VALUE;
        while (p != null) {
            Permit next = p.nextPending;
            p.nextPending = null;
            if (p.readsWallClock && nowMillis == Long.MIN_VALUE) {
                nowMillis = clock.epochMillis();
            }
            try {
                apply(p, nowNanos, nowMillis, stats);
            } catch (RuntimeException f) {
                // whoever drains (another caller's admission, a lock holder handing over) must not
                // fail for it, nor lose the settlements behind it: what of this one is not applied
                // is tried again when its lease runs out (Permit#expireLease)
                if (fault == null) {
                    fault = f;
                }
            }
            p = next;
        }
        return true;
    }

    /** The first settlement that failed to apply since the last call, or null. Lock held. */
    RuntimeException takeFault() {
        RuntimeException f = fault;
        fault = null;
        return f;
    }

    /**
     * Applies a permit's settlement and release by the thread that asked for them, holding the
     * lock already: no queueing. The settlement request is set; the release may have been asked
     * and queued by another thread too, in which case the drain finds it applied.
     */
    void applyInline(Permit p, long nowNanos, Clock clock, GovernorStats stats) {
        int before = p.markSettledAndReleasedInline();
        // what this call applies; if one throws, what it did not apply is unmarked again, so the
        // permit's lease expiry tries it again (Permit#expireLease) instead of finding it done
        int toApply = ~before & (Permit.SETTLE_APPLIED | Permit.RELEASE_APPLIED);
        try {
            long nowMillis = p.readsWallClock ? clock.epochMillis() : 0;
            if ((toApply & Permit.SETTLE_APPLIED) != 0) {
                Object settlement = p.settlementRequest();
                settle(p, settlement, nowNanos, nowMillis);
                stats.onSettled(p, settlement instanceof Usage ? (Usage) settlement : null);
                toApply &= ~Permit.SETTLE_APPLIED;
            }
            if ((toApply & Permit.RELEASE_APPLIED) != 0) {
                release(p, nowNanos);
                toApply &= ~Permit.RELEASE_APPLIED;
            }
        } finally {
            if (toApply != 0) {
                p.unmarkApplied(toApply);
            }
        }
        if (p.inLeaseList) {
            remove(p);
        }
    }

    private void apply(Permit p, long nowNanos, long nowMillis, GovernorStats stats) {
        int requested = p.takeRequests();
        Object settlement = p.settlementRequest();
        if (settlement != null && (requested & Permit.SETTLE_APPLIED) == 0) {
            settle(p, settlement, nowNanos, nowMillis);
            stats.onSettled(p, settlement instanceof Usage ? (Usage) settlement : null);
            // marked at once: if the release below fails, its retry must not settle a second time
            p.markApplied(Permit.SETTLE_APPLIED);
        }
        if ((requested & Permit.RELEASE_REQUESTED) != 0 && (requested & Permit.RELEASE_APPLIED) == 0) {
            release(p, nowNanos);
            p.markApplied(Permit.RELEASE_APPLIED);
        }
        if (p.inLeaseList && p.isDone()) {
            remove(p);
        }
    }

    /**
     * Settles the permit's buckets in order, from the first one not settled yet: a settlement that
     * failed part-way (a bucket threw) is tried again at lease expiry and resumes after the buckets
     * it had settled, never giving any of them its refund or charge twice.
     */
    private static void settle(Permit p, Object settlement, long nowNanos, long nowMillis) {
        Bucket[] buckets = p.buckets;
        long[] amounts = p.amounts;
        for (int i = p.bucketsSettled; i < amounts.length; i++) {
            long amount = amounts[i];
            Bucket b = buckets[i];
            Dimension d = b.limit().dimension();
            if (amount != 0 && d != Dimension.CONCURRENCY) {
                settleBucket(p, i, actual(b, d, amount, p.demand(), settlement), nowNanos, nowMillis);
            }
            // counted before the budget hears of it: should that throw, the bucket stays settled once
            p.bucketsSettled = i + 1;
            if (amount != 0 && d == Dimension.SPEND) {
                p.governor().budgets().settled(b, settlement, nowNanos);
            }
        }
        if (p.probe && (settlement == Permit.CANCEL || settlement == Permit.AS_RESERVED)) {
            p.scope().probeAbandoned();
        }
    }

    /** Gives the permit's concurrency slots back, from the first one not given back yet (as {@link #settle}). */
    private static void release(Permit p, long nowNanos) {
        if (p.fairCounted) {
            p.fairCounted = false;
            p.scope().tenantShares().ended(p.context().tenant(), nowNanos);
        }
        if (p.slowStartCharges != null) {
            p.scope().slowStartReleased(p.slowStartCharges);
            p.slowStartCharges = null;
        }
        Bucket[] buckets = p.buckets;
        long[] amounts = p.amounts;
        for (int i = p.bucketsReleased; i < amounts.length; i++) {
            if (amounts[i] > 0 && buckets[i].limit().dimension() == Dimension.CONCURRENCY) {
                // a shared bucket tells by what take returned whether the slot came from the store
                settleBucket(p, i, 0, nowNanos, 0);
            }
            p.bucketsReleased = i + 1;
        }
    }

    /** Settles bucket {@code i} of the permit at {@code actual}, with the take and reserve its admission recorded. */
    private static void settleBucket(Permit p, int i, long actual, long nowNanos, long nowMillis) {
        p.buckets[i].settle(
                p.amounts[i],
                actual,
                p.takenAt == null ? 0 : p.takenAt[i],
                p.guarantee,
                p.fromReserve == null ? 0 : p.fromReserve[i],
                nowNanos,
                nowMillis);
    }

    /** What a bucket's charge comes to once the call is settled this way. */
    private static long actual(Bucket b, Dimension d, long amount, Demand demand, Object settlement) {
        if (settlement == Permit.CANCEL || settlement == Permit.REFUSED_NOT_COUNTED) {
            return 0;
        }
        if (settlement == Permit.AS_RESERVED) {
            return amount;
        }
        if (settlement == Permit.REFUSED_COUNTED) {
            return d == Dimension.REQUESTS ? amount : 0;
        }
        if (d == Dimension.REQUESTS) {
            return amount;
        }
        if (b.limit().mirrorsProvider() && !demand.providerTruesUp(d)) {
            return amount; // the provider keeps what it charged at admission
        }
        Usage usage = (Usage) settlement;
        switch (d) {
            case INPUT_TOKENS:
                return usage.inputTokens();
            case OUTPUT_TOKENS:
                return usage.outputTokens();
            case TOTAL_TOKENS:
                return usage.totalTokens();
            case SPEND:
                return usage.spendMicros();
            default:
                return amount;
        }
    }

    // ------------------------------------------------------------------ leases

    /** The next permit's number, in the order of admission through the lock or of registration. Lock held. */
    long nextId() {
        return ++lastId;
    }

    void append(Permit p) {
        p.inLeaseList = true;
        p.leasePrev = leaseTail;
        p.leaseNext = null;
        if (leaseTail != null) {
            leaseTail.leaseNext = p;
        } else {
            leaseHead = p;
        }
        leaseTail = p;
        outstanding++;
    }

    void remove(Permit p) {
        if (p.leasePrev != null) {
            p.leasePrev.leaseNext = p.leaseNext;
        } else {
            leaseHead = p.leaseNext;
        }
        if (p.leaseNext != null) {
            p.leaseNext.leasePrev = p.leasePrev;
        } else {
            leaseTail = p.leasePrev;
        }
        p.leasePrev = null;
        p.leaseNext = null;
        p.inLeaseList = false;
        outstanding--;
    }

    /** The oldest permit still holding something, or null. */
    Permit oldest() {
        return leaseHead;
    }

    int outstanding() {
        return outstanding;
    }
}
