package dev.sluice.core.schedule;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The waiting calls of one traffic class, one FIFO per tenant, shared between tenants by weighted
 * deficit round robin on cost (tokens). Tenants take turns; at the start of its turn a tenant
 * earns a quantum proportional to its weight and spends it on its calls; the turn ends when the
 * next call costs more than what is left. So backlogged tenants get capacity in proportion to
 * their weights whatever load they offer, and a large call is served once its tenant has earned
 * enough, instead of being starved by small ones.
 *
 * <p>Capacity usually comes back a little at a time, so a turn spans several dispatch passes:
 * when the tenant whose turn it is cannot be served for lack of room, it keeps its turn (and its
 * call takes first claim on the refill), and the pass ends; meanwhile other tenants' calls are
 * only admitted if they fit in capacity nobody has claimed, and what they take is charged to their
 * own deficit.
 *
 * <p>Not thread-safe: used under the governor's lock.
 */
public final class ClassQueue<W extends QueuedCall> {

    /**
     * Cost units (tokens) a tenant of weight 1 earns per turn: smaller than a typical call, so a
     * turn is about one call and shares stay even while capacity trickles in.
     */
    static final long BASE_QUANTUM = 64;

    /** How many calls of one tenant are looked at when the first ones are held up by other buckets. */
    static final int SCAN_LIMIT = 16;

    /** Bounds the work of one pass; the next pass continues where this one stopped. */
    static final int MAX_STEPS = 100_000;

    private final TrafficClass trafficClass;
    private final Map<String, TenantQueue<W>> byTenant = new HashMap<>();
    /** Tenants with waiting calls, in turn order; the first one has the turn. */
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

    /** Adds a call at the end of its tenant's FIFO; a tenant that was idle joins at the end of the turn order. */
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
            retire(t);
        }
        return true;
    }

    /** A tenant with nothing waiting leaves the turn order and keeps no credit (no hoarding while idle). */
    private void retire(TenantQueue<W> t) {
        active.remove(t);
        byTenant.remove(t.tenant);
        t.deficit = 0;
        t.inTurn = false;
    }

    /**
     * One dispatch pass: serves tenants in turn until the one whose turn it is cannot be served
     * for lack of room, or until {@code budget} cost units were admitted.
     *
     * @param weights each tenant's weight (> 0)
     * @param offer tries to admit one call
     * @return the cost admitted
     */
    public long dispatch(ToDoubleFunction<String> weights, Offer<W> offer, long budget) {
        long spent = 0;
        for (int step = 0; step < MAX_STEPS && !active.isEmpty() && spent < budget; step++) {
            TenantQueue<W> t = active.peekFirst();
            if (!t.inTurn) {
                t.deficit += quantum(weights.applyAsDouble(t.tenant));
                t.inTurn = true;
            }
            Turn turn = serve(t, offer, budget - spent);
            spent += turn.spent;
            if (t.waiters.isEmpty()) {
                retire(t);
            } else if (turn.over) {
                t.inTurn = false;
                active.pollFirst();
                active.addLast(t);
            } else if (turn.heldUp) {
                spent += admitWhatFitsElsewhere(t, offer, budget - spent);
                return spent;
            }
        }
        return spent;
    }

    /**
     * Serves the tenant whose turn it is, from the head of its FIFO. Whether the turn is over is
     * decided by the head alone: once the head waits for room, the turn is held up, and the calls
     * behind it may only spend the credit the calls waiting ahead of them do not need, so that
     * neither their cost nor what they spend can end the turn before the head is served.
     */
    private Turn serve(TenantQueue<W> t, Offer<W> offer, long budget) {
        long spent = 0;
        long owedAhead = 0; // the cost of the calls looked at and left waiting
        boolean claimed = false;
        int looked = 0;
        Iterator<W> it = t.waiters.iterator();
        while (it.hasNext() && looked < SCAN_LIMIT && spent < budget) {
            W call = it.next();
            if (call.cost() > t.deficit - owedAhead) {
                // it waits for the tenant's next turn, and so do the calls behind it; the turn is
                // over only if no call ahead of it is waiting for room
                return new Turn(spent, looked == 0, looked > 0);
            }
            // the first call that does not fit claims the refill; the ones behind it only look
            // for room in other buckets
            Verdict verdict = offer.offer(call, !claimed);
            if (verdict == Verdict.ADMITTED) {
                t.deficit -= call.cost();
                spent += call.cost();
                it.remove();
                size--;
            } else if (verdict == Verdict.GONE) {
                it.remove();
                size--;
            } else {
                claimed = true;
                owedAhead += call.cost();
                looked++;
            }
        }
        return new Turn(spent, false, looked > 0 || spent >= budget);
    }

    /**
     * While the tenant with the turn waits for room, other tenants' calls that fit in capacity it
     * has not claimed (another provider, another key) need not wait; what they take counts
     * against their own deficit, so it is paid back in their next turns.
     */
    private long admitWhatFitsElsewhere(TenantQueue<W> holder, Offer<W> offer, long budget) {
        long spent = 0;
        List<TenantQueue<W>> emptied = new ArrayList<>();
        for (TenantQueue<W> u : active) {
            if (u == holder || spent >= budget) {
                continue;
            }
            int looked = 0;
            Iterator<W> it = u.waiters.iterator();
            while (it.hasNext() && looked < SCAN_LIMIT && spent < budget) {
                W call = it.next();
                Verdict verdict = offer.offer(call, false);
                if (verdict == Verdict.ADMITTED) {
                    u.deficit -= call.cost();
                    spent += call.cost();
                    it.remove();
                    size--;
                } else if (verdict == Verdict.GONE) {
                    it.remove();
                    size--;
                } else {
                    looked++;
                }
            }
            if (u.waiters.isEmpty()) {
                emptied.add(u);
            }
        }
        for (TenantQueue<W> u : emptied) {
            retire(u);
        }
        return spent;
    }

    private static long quantum(double weight) {
        return Math.max(1, Math.round(BASE_QUANTUM * weight));
    }

    /** Every queued call, in no particular order (for expiry scans and shutdown). */
    public Iterable<W> all() {
        List<W> all = new ArrayList<>(size);
        for (TenantQueue<W> t : active) {
            all.addAll(t.waiters);
        }
        return all;
    }

    /** Tries to admit one waiting call. */
    public interface Offer<W> {
        /**
         * @param mayClaim whether the call may take first claim on buckets that lack room for it,
         *     so that refills go to it before anyone else
         */
        Verdict offer(W call, boolean mayClaim);
    }

    private static final class TenantQueue<W> {
        final String tenant;
        final ArrayDeque<W> waiters = new ArrayDeque<>();
        long deficit;
        boolean inTurn;

        TenantQueue(String tenant) {
            this.tenant = tenant;
        }
    }

    /** How a tenant's turn went in this pass. */
    private static final class Turn {
        final long spent;
        /** The next call costs more than the tenant has left: its turn is over. */
        final boolean over;
        /** The tenant could afford its next call but there was no room: it keeps its turn. */
        final boolean heldUp;

        Turn(long spent, boolean over, boolean heldUp) {
            this.spent = spent;
            this.over = over;
            this.heldUp = heldUp;
        }
    }
}
