package dev.sluice.core.schedule;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The waiting calls of one traffic class, one FIFO per tenant, shared between tenants by weighted
 * deficit round robin on cost (tokens): each tenant with waiting calls earns a quantum
 * proportional to its weight per round and spends it on its calls, so backlogged tenants get
 * capacity in proportion to their weights whatever their offered load, and a large call is served
 * once its tenant has earned enough instead of being starved by small ones.
 *
 * <p>Not thread-safe: used under the governor's lock.
 */
public final class ClassQueue<W extends QueuedCall> {

    /** Cost units a tenant of weight 1 earns per round. */
    static final long BASE_QUANTUM = 512;

    /** How many calls of one tenant are looked at when the first ones are held up by other buckets. */
    static final int SCAN_LIMIT = 16;

    /** Bounds the work of one pass; a later pass continues. */
    static final int MAX_ROUNDS = 10_000;

    private final TrafficClass trafficClass;
    private final Map<String, TenantQueue<W>> byTenant = new HashMap<>();
    private final ArrayDeque<TenantQueue<W>> active = new ArrayDeque<>();
    private int size;

    public ClassQueue(TrafficClass trafficClass) {
        this.trafficClass = trafficClass;
    }

    public TrafficClass trafficClass() {
        return trafficClass;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Waiting calls per tenant (for JMX). */
    public Map<String, Integer> sizesByTenant() {
        Map<String, Integer> sizes = new HashMap<>();
        for (TenantQueue<W> t : active) {
            sizes.put(t.tenant, t.waiters.size());
        }
        return sizes;
    }

    /** Adds a call at the end of its tenant's FIFO. */
    public void add(W call) {
        TenantQueue<W> t = byTenant.computeIfAbsent(call.tenant(), TenantQueue::new);
        if (t.waiters.isEmpty()) {
            active.addLast(t);
        }
        t.waiters.addLast(call);
        size++;
    }

    /** Removes a call wherever it is (cancelled or expired); false when it was not queued. */
    public boolean remove(W call) {
        TenantQueue<W> t = byTenant.get(call.tenant());
        if (t == null || !t.waiters.remove(call)) {
            return false;
        }
        size--;
        if (t.waiters.isEmpty()) {
            deactivate(t);
        }
        return true;
    }

    private void deactivate(TenantQueue<W> t) {
        active.remove(t);
        t.deficit = 0;
        byTenant.remove(t.tenant);
    }

    /**
     * One dispatch pass: offers calls their turn in deficit round robin order until nothing more
     * can be admitted now.
     *
     * @param weights each tenant's weight (> 0)
     * @param offer tries to admit one call
     */
    public void dispatch(ToDoubleFunction<String> weights, Function<W, Verdict> offer) {
        for (int round = 0; round < MAX_ROUNDS && !active.isEmpty(); round++) {
            boolean admitted = false;
            long fewestRoundsShort = Long.MAX_VALUE;
            int tenants = active.size();
            for (int i = 0; i < tenants && !active.isEmpty(); i++) {
                TenantQueue<W> t = active.pollFirst();
                long quantum = quantum(weights.applyAsDouble(t.tenant));
                t.deficit += quantum;
                TurnResult turn = takeTurn(t, offer);
                admitted |= turn.admitted;
                if (turn.shortOf > 0) {
                    fewestRoundsShort = Math.min(fewestRoundsShort, (turn.shortOf + quantum - 1) / quantum);
                }
                if (t.waiters.isEmpty()) {
                    t.deficit = 0;
                    byTenant.remove(t.tenant);
                } else {
                    // A tenant held up by capacity must not hoard credit for a later burst.
                    W head = t.waiters.peekFirst();
                    t.deficit = Math.min(t.deficit, Math.max(quantum, head.cost()));
                    active.addLast(t);
                }
            }
            if (!admitted) {
                if (fewestRoundsShort == Long.MAX_VALUE) {
                    return; // everything that could afford its turn is held up by capacity
                }
                // Nobody could afford a call this round: skip the empty rounds at once.
                long skip = fewestRoundsShort - 1;
                if (skip > 0) {
                    for (TenantQueue<W> t : active) {
                        t.deficit += skip * quantum(weights.applyAsDouble(t.tenant));
                    }
                }
            }
        }
    }

    private TurnResult takeTurn(TenantQueue<W> t, Function<W, Verdict> offer) {
        boolean admitted = false;
        int looked = 0;
        Iterator<W> it = t.waiters.iterator();
        while (it.hasNext() && looked < SCAN_LIMIT) {
            W call = it.next();
            if (call.cost() > t.deficit) {
                // The tenant's next call costs more than it has earned: it waits for the next
                // round, and so do the calls behind it (its own order is kept).
                return new TurnResult(admitted, call.cost() - t.deficit);
            }
            Verdict verdict = offer.apply(call);
            if (verdict == Verdict.ADMITTED) {
                t.deficit -= call.cost();
                it.remove();
                size--;
                admitted = true;
            } else if (verdict == Verdict.GONE) {
                it.remove();
                size--;
            } else {
                looked++;
            }
        }
        return new TurnResult(admitted, 0);
    }

    private static long quantum(double weight) {
        return Math.max(1, Math.round(BASE_QUANTUM * weight));
    }

    /** Every queued call, in no particular order (for expiry scans and shutdown). */
    public Iterable<W> all() {
        java.util.List<W> all = new java.util.ArrayList<>(size);
        for (TenantQueue<W> t : active) {
            all.addAll(t.waiters);
        }
        return all;
    }

    private static final class TenantQueue<W> {
        final String tenant;
        final ArrayDeque<W> waiters = new ArrayDeque<>();
        long deficit;

        TenantQueue(String tenant) {
            this.tenant = tenant;
        }
    }

    private static final class TurnResult {
        final boolean admitted;
        final long shortOf;

        TurnResult(boolean admitted, long shortOf) {
            this.admitted = admitted;
            this.shortOf = shortOf;
        }
    }
}
