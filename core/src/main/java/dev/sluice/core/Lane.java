package dev.sluice.core;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.LaneCredit;
import dev.sluice.core.quota.LaneLender;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The governor's lock-free way in. When every bucket on a call's path is a token bucket that lent
 * room in advance ({@link LaneLender#lend}), the call is admitted by taking that room, one
 * compare-and-set per bucket, without the governor's lock. The lock holder lends after admitting
 * a call on such a path through the lock, when nothing waits ({@link #lend}).
 *
 * <p>A lane permit is pushed on its thread's stripe of admitted permits; the next lock holder
 * registers it (its number, its lease, the counters, the lease list), as it applies settlements
 * ({@link #register}).
 * A stripe that grows deep has its thread register it ({@link Backlog}), so the lane hides at most
 * a few thousand permits per stripe from the reaper and the status views, and cannot outrun the
 * thread that registers them.
 *
 * <p>Everything the lane reads sits apart from what the lock holder writes: the gate on its own
 * cache line, the lent room in its own stripes, the path's charging rules copied into the path.
 */
final class Lane {

    /** Stripes of admitted permits; the same count and thread-to-stripe rule as the lent room. */
    static final int STRIPES = LaneCredit.STRIPES;

    /**
     * References per stripe: at least 128 bytes, so two stripes share neither a cache line nor
     * the pair of lines the processor fetches together.
     */
    private static final int SPACING = 32;

    /**
     * Each stripe's stack of admitted permits. The stack lives in a small holder replaced at each
     * registration, so it is nearly always a young object: pushing a new permit on it is a store
     * from young to young, which the garbage collector's write barrier lets through at once,
     * where a store into the long-lived array costs a fence and a card mark on every admission.
     */
    private final AtomicReferenceArray<Stack> admitted = new AtomicReferenceArray<>(STRIPES * SPACING);

    /** The head of one stripe's stack; {@link #CLOSED} once a registration took it. */
    static final class Stack {
        private static final VarHandle HEAD;

        static {
            try {
                HEAD = MethodHandles.lookup().findVarHandle(Stack.class, "head", Permit.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // through HEAD
        private volatile Permit head;
    }

    /** Marks a stack a registration took: a push that finds it goes to the stripe's new stack. */
    private static final Permit CLOSED = Permit.closedMarker();

    // Where a registration puts the lane's permits (guarded by the governor's lock).

    private final PermitLedger ledger;
    private final LeaseReaper reaper;
    private final GovernorStats stats;
    private final long leaseTimeoutNanos;

    Lane(PermitLedger ledger, LeaseReaper reaper, GovernorStats stats, long leaseTimeoutNanos) {
        this.ledger = ledger;
        this.reaper = reaper;
        this.stats = stats;
        this.leaseTimeoutNanos = leaseTimeoutNanos;
        for (int s = 0; s < STRIPES; s++) {
            admitted.set(s * SPACING, new Stack());
        }
    }

    /** Whether the lane is open, in the middle of an array so its cache line holds nothing else. */
    private final AtomicIntegerArray gate = new AtomicIntegerArray(32);

    private static final int GATE = 16;

    /** The calling thread's stripe: consecutive thread ids get different stripes. */
    static int stripe() {
        return (int) Thread.currentThread().getId() & (STRIPES - 1);
    }

    boolean isOpen() {
        return gate.get(GATE) != 0;
    }

    /** Opens or closes the lane (enforce mode, nobody waiting, no operator pause, not closed). Lock held. */
    void setOpen(boolean open) {
        gate.set(GATE, open ? 1 : 0);
    }

    /**
     * Takes what the demand needs from the room lent on every bucket of the path, or from none.
     *
     * @return the amount taken from each bucket, or null when one of them had not lent enough
     */
    static long[] take(Route.LanePath path, Demand demand, int stripe) {
        LaneCredit[] credits = path.credits;
        long[] amounts = new long[credits.length];
        for (int i = 0; i < credits.length; i++) {
            long amount = path.amount(i, demand);
            if (amount != 0 && !credits[i].tryTake(stripe, amount)) {
                for (int j = 0; j < i; j++) {
                    if (amounts[j] != 0) {
                        credits[j].putBack(stripe, amounts[j]);
                    }
                }
                return null;
            }
            amounts[i] = amount;
        }
        return amounts;
    }

    /**
     * When the room taken was lent (the latest loan over the path): a time at which the room was
     * there and no later than now; {@code Long.MIN_VALUE} when the call took no room. Fills {@code
     * lentMoments} with what a refund hands each bucket back ({@link Bucket#giveBack}): the moment
     * of the stripe's last loan, earlier than the registration that counts the admission.
     */
    static long lentAtNanos(Route.LanePath path, long[] amounts, int stripe, long[] lentMoments) {
        long at = Long.MIN_VALUE;
        for (int i = 0; i < amounts.length; i++) {
            if (amounts[i] != 0) {
                LaneCredit credit = path.credits[i];
                lentMoments[i] = credit.lentMoment(stripe);
                long lent = credit.lentAtNanos(stripe);
                if (at == Long.MIN_VALUE || lent - at > 0) {
                    at = lent;
                }
            }
        }
        return at;
    }

    /**
     * Pushes a lane permit for the lock holder to register. Any thread, no lock.
     *
     * @return the stripe's depth with it: how many wait to be registered (see {@link Backlog})
     */
    int push(Permit p, int stripe) {
        int i = stripe * SPACING;
        while (true) {
            Stack stack = admitted.get(i);
            Permit head = stack.head;
            if (head == CLOSED) {
                continue; // a registration took this stack; its replacement is in the array already
            }
            p.laneNext = head;
            p.laneDepth = head == null ? 1 : head.laneDepth + 1;
            if (Stack.HEAD.compareAndSet(stack, head, p)) {
                return p.laneDepth;
            }
        }
    }

    /**
     * After an admission through the lock: lends this thread room on the path, if the lane is open
     * and may use it. Lock held.
     */
    void lend(Route route, long nowNanos) {
        if (!isOpen() || !route.scope.openToLane()) {
            return;
        }
        Route.LanePath path = route.lanePath();
        if (path == null) {
            return;
        }
        int stripe = stripe();
        for (LaneLender lender : path.lenders) {
            lender.lend(stripe, nowNanos);
        }
        reaper.laneInUse(); // from now on the reaper also registers lane permits
    }

    /**
     * Registers one stripe's permits: each gets its number, its lease (from now, so never shorter
     * than configured), the counters and the lease list, and its buckets count what it took as
     * reserved rather than lent, summed over each run of permits on one path. That is done at
     * {@code freshNanos}, a clock reading taken now: it raises the level's cap, and the refill up
     * to now must first be applied at the old one. Lock held.
     */
    void register(int stripe, long freshNanos) {
        LaneRun run = null;
        for (Permit p = takeStripe(stripe); p != null; ) {
            Permit next = p.laneNext;
            if (run == null || !run.covers(p)) {
                if (run != null) {
                    run.register(stats, freshNanos);
                }
                run = new LaneRun(p);
            }
            run.add(p);
            p.registered(ledger.nextId(), freshNanos + leaseTimeoutNanos);
            if (!p.isDone()) {
                ledger.append(p);
                reaper.withinALease();
            }
            p = next;
        }
        if (run != null) {
            run.register(stats, freshNanos);
        }
    }

    /** Registers every stripe's permits (see {@link #register(int, long)}). Lock held. */
    void registerAll(long freshNanos) {
        for (int s = 0; s < STRIPES; s++) {
            register(s, freshNanos);
        }
    }

    /** Takes one stripe's permits, newest first; null when there are none. Lock held. */
    private Permit takeStripe(int stripe) {
        int i = stripe * SPACING;
        if (admitted.get(i).head == null) {
            return null;
        }
        Stack taken = admitted.getAndSet(i, new Stack());
        return (Permit) Stack.HEAD.getAndSet(taken, CLOSED);
    }

    /** The deepest stripe: how many lane permits at most wait on one stripe (racy; for tests). */
    int deepestStripe() {
        int deepest = 0;
        for (int s = 0; s < STRIPES; s++) {
            Permit head = admitted.get(s * SPACING).head;
            if (head != null && head != CLOSED) {
                deepest = Math.max(deepest, head.laneDepth);
            }
        }
        return deepest;
    }

    /** Whether some lane permit waits to be registered (racy). */
    boolean hasUnregistered() {
        for (int s = 0; s < STRIPES; s++) {
            Permit head = admitted.get(s * SPACING).head;
            if (head != null && head != CLOSED) {
                return true;
            }
        }
        return false;
    }
}
