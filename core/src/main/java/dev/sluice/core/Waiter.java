package dev.sluice.core;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.schedule.QueuedCall;
import dev.sluice.core.schedule.TrafficClass;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A call waiting in its traffic class queue. Its future completes with the admission or the
 * rejection; the thread that completes it is whoever dispatched (never while holding the lock).
 */
final class Waiter extends Decided implements QueuedCall {

    final CallContext context;
    final Demand demand;
    final TrafficClass trafficClass;
    final long deadlineNanos;
    final long enqueuedNanos;
    final CompletableFuture<Admission> future = new CompletableFuture<>();
    private final String tenantKey;
    private final long cost;

    /** Buckets this waiter has first claim on (guarded by the governor's lock). */
    List<Bucket> claims;

    /** Left the queue (admitted, expired or cancelled); guarded by the governor's lock. */
    boolean done;

    /** The outcome to complete the future with, once the lock is released. */
    Admission outcome;

    Waiter(CallContext context, Demand demand, TrafficClass trafficClass, long deadlineNanos, long enqueuedNanos) {
        this.context = context;
        this.demand = demand;
        this.trafficClass = trafficClass;
        this.deadlineNanos = deadlineNanos;
        this.enqueuedNanos = enqueuedNanos;
        this.tenantKey = context.tenant() == null ? "" : context.tenant();
        long tokens = demand.totalTokens();
        this.cost = tokens > 0 ? tokens : 1;
    }

    @Override
    Waiter queued() {
        return this;
    }

    @Override
    Admission admission() {
        throw new IllegalStateException("queued: its admission comes through its future");
    }

    @Override
    public String tenant() {
        return tenantKey;
    }

    @Override
    public long cost() {
        return cost;
    }

    void claim(Bucket bucket) {
        if (claims == null) {
            claims = new ArrayList<>(2);
        }
        bucket.claim(this);
        claims.add(bucket);
    }

    void releaseClaims() {
        if (claims != null) {
            for (Bucket b : claims) {
                b.unclaim(this);
            }
            claims = null;
        }
    }

    /** Completes the future; a permit nobody will receive (the caller cancelled) is given back. */
    void deliver() {
        Admission a = outcome;
        if (!future.complete(a) && a.isAdmitted()) {
            a.permit().cancel();
        }
    }
}
