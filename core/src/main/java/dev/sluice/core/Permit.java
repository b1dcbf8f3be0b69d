package dev.sluice.core;

import dev.sluice.core.quota.ProviderScope;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An admitted call's reservation: what it took from each bucket on its path. Settled exactly once
 * with the actual usage (refunding what was over-reserved, debiting what was under); its
 * concurrency slot is released separately, because a stream ends long after its headers. A permit
 * nobody settles is released by the lease reaper when its lease expires. Thread-safe.
 */
public final class Permit {

    private static final int SETTLED = 1;
    private static final int RELEASED = 2;

    private final Governor governor;
    private final long id;
    private final CallContext context;
    private final Demand demand;
    final Charge[] charges;
    private final long admittedNanos;
    private final long waitedNanos;
    final long leaseExpiryNanos;
    private final ProviderScope scope;
    private final AtomicInteger state = new AtomicInteger();

    /** Links in the governor's lease list (guarded by the governor's lock). */
    Permit leasePrev;
    Permit leaseNext;
    boolean inLeaseList;

    /** Whether this permit is its provider scope's probe after a pause. */
    volatile boolean probe;

    Permit(Governor governor, long id, CallContext context, Demand demand, Charge[] charges, long admittedNanos,
            long waitedNanos, long leaseExpiryNanos, ProviderScope scope) {
        this.governor = governor;
        this.id = id;
        this.context = context;
        this.demand = demand;
        this.charges = charges;
        this.admittedNanos = admittedNanos;
        this.waitedNanos = waitedNanos;
        this.leaseExpiryNanos = leaseExpiryNanos;
        this.scope = scope;
    }

    /** The provider scope the call went through (null in mode off). */
    ProviderScope scope() {
        return scope;
    }

    /**
     * The lease ran out with the permit still holding something (a stream nobody closed): what it
     * reserved is kept as used, since Sluice cannot know better, and its slot comes back.
     */
    void expireLease() {
        if (markSettled()) {
            governor.settleAsReserved(this);
        }
        releaseConcurrency();
    }

    public long id() {
        return id;
    }

    public CallContext context() {
        return context;
    }

    public Demand demand() {
        return demand;
    }

    /** How long the call waited for this admission. */
    public long waitedNanos() {
        return waitedNanos;
    }

    public long admittedNanos() {
        return admittedNanos;
    }

    /**
     * Settles the reservation with what the call actually used: each bucket gets back what was
     * over-reserved or pays what was under. Buckets mirroring a provider that keeps its admission
     * charge (OpenAI tokens) keep it. Exactly once: later calls (and {@link #cancel()}) return false.
     */
    public boolean settle(Usage actual) {
        if (!markSettled()) {
            return false;
        }
        governor.settle(this, actual, false);
        return true;
    }

    /**
     * Settles an attempt the provider refused: its requests stay counted where the provider counts
     * refused requests (OpenAI's per-minute limits do), its tokens come back, and its concurrency
     * slot is released.
     */
    public boolean settleRefused(boolean providerCountsRefusedRequests) {
        if (!markSettled()) {
            return false;
        }
        governor.settleRefused(this, providerCountsRefusedRequests);
        releaseConcurrency();
        return true;
    }

    /**
     * The call never reached the provider (cancelled, failed before sending): everything it
     * reserved comes back, its concurrency slot included.
     */
    public boolean cancel() {
        if (!markSettled()) {
            return false;
        }
        governor.settle(this, null, true);
        releaseConcurrency();
        return true;
    }

    /** Releases the call's concurrency slot (its body or stream ended or was closed). Idempotent. */
    public void releaseConcurrency() {
        int s;
        do {
            s = state.get();
            if ((s & RELEASED) != 0) {
                return;
            }
        } while (!state.compareAndSet(s, s | RELEASED));
        governor.releaseConcurrency(this);
    }

    /** Whether the reservation has been settled (or cancelled). */
    public boolean isSettled() {
        return (state.get() & SETTLED) != 0;
    }

    /** Whether the concurrency slot has been released. */
    public boolean isReleased() {
        return (state.get() & RELEASED) != 0;
    }

    /** Whether the permit holds nothing any more. */
    boolean isDone() {
        return state.get() == (SETTLED | RELEASED);
    }

    private boolean markSettled() {
        int s;
        do {
            s = state.get();
            if ((s & SETTLED) != 0) {
                return false;
            }
        } while (!state.compareAndSet(s, s | SETTLED));
        return true;
    }

    @Override
    public String toString() {
        return "Permit#" + id + "{" + context + ", " + demand + '}';
    }
}
