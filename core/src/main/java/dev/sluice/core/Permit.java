package dev.sluice.core;

import dev.sluice.core.quota.AnswerAge;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.ProviderScope;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An admitted call's reservation: what it took from each bucket on its path. Settled exactly once
 * with the actual usage (refunding what was over-reserved, debiting what was under); its
 * concurrency slot is released separately, because a stream ends long after its headers. A permit
 * nobody settles is released by the lease reaper when its lease expires. Thread-safe.
 *
 * <p>Settling never waits for the governor's lock: the permit records the request and joins a
 * lock-free stack that the governor applies under the lock it takes anyway for the next
 * admission, or at once when calls are waiting for the capacity it returns.
 */
public final class Permit extends Admission {

    private static final long[] NONE = new long[0];

    static final int RELEASE_REQUESTED = 1;
    static final int QUEUED = 2;
    static final int SETTLE_APPLIED = 4;
    static final int RELEASE_APPLIED = 8;

    /** Settlement requests that carry no usage. */
    static final Object CANCEL = new Object();

    static final Object AS_RESERVED = new Object();
    static final Object REFUSED_COUNTED = new Object();
    static final Object REFUSED_NOT_COUNTED = new Object();

    private static final VarHandle STATE;
    private static final VarHandle SETTLEMENT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(Permit.class, "state", int.class);
            SETTLEMENT = l.findVarHandle(Permit.class, "settlement", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Governor governor;
    /** Set at admission, or when the lock holder registers a lane admission (0 until then). */
    private long id;

    private final CallContext context;
    private final Demand demand;
    /** The buckets on the call's path; {@link #amounts} says what each was charged (0: nothing). */
    final Bucket[] buckets;

    final long[] amounts;
    /**
     * What each bucket's {@link Bucket#take} returned (a window's id, a token bucket's moment),
     * handed back with its refund; null when no bucket on the path tracks its takes.
     */
    final long[] takenAt;
    /** Whether settling reads the wall clock: a bucket on the path counts in windows or in a shared store. */
    final boolean readsWallClock;
    /** What came from the tenant's guaranteed reserve in each bucket (null without a guarantee). */
    final long[] fromReserve;

    final int guarantee;
    private final long admittedNanos;
    private final long waitedNanos;
    /** Set at admission, or when a lane admission is registered (guarded by the governor's lock). */
    long leaseExpiryNanos;

    private final ProviderScope scope;
    /** The tenant's counters, updated when the permit is settled (null in mode off). */
    final dev.sluice.core.telemetry.TenantCounters tenantCounters;

    @SuppressWarnings("unused") // through STATE
    private volatile int state;
    /** The settlement asked for: a {@link Usage}, or one of the markers above; set once. */
    @SuppressWarnings("unused") // through SETTLEMENT
    private volatile Object settlement;

    /** Next permit on the governor's stack of settlements to apply, and that stack's depth with this one on top. */
    Permit nextPending;

    int pendingDepth;

    /** Links in the governor's lease list (guarded by the governor's lock). */
    Permit leasePrev;

    Permit leaseNext;
    boolean inLeaseList;

    /**
     * Each bucket's {@link Bucket#admittedTotal()} just after this admission (same index as
     * {@link #buckets}), so its answer's figures can be read as of when they arrive; null for a
     * lane admission (its figures are read as current).
     */
    long[] admittedMarks;

    /**
     * How many of {@link #buckets}, in order, the settlement (the release) has applied so far,
     * guarded by the lock: one that failed part-way resumes after them when tried again.
     */
    int bucketsSettled;

    int bucketsReleased;

    /** Whether its scope's tenant shares count this call in flight until it is released (guarded by the lock). */
    boolean fairCounted;

    /** Whether this permit is its provider scope's probe after a pause (guarded by the lock). */
    boolean probe;

    /**
     * What it charges the provider by dimension while it holds a place in its scope's slow start,
     * until released; null when it holds none (guarded by the lock).
     */
    long[] slowStartCharges;

    /**
     * Whether its scope's slow start waits for its answer, to widen when it is accepted (set under
     * the lock before the permit reaches its caller; cleared by the answer, under the lock).
     */
    boolean slowStartAnswer;

    /**
     * Admitted through the lock-free lane and not registered yet: its route (for the counters),
     * the next permit on its stripe's stack, and that stack's depth with it on top.
     */
    Route laneRoute;

    Permit laneNext;
    int laneDepth;

    Permit(
            Governor governor,
            long id,
            CallContext context,
            Demand demand,
            Bucket[] buckets,
            long[] amounts,
            long[] takenAt,
            boolean readsWallClock,
            long[] fromReserve,
            int guarantee,
            long admittedNanos,
            long waitedNanos,
            long leaseExpiryNanos,
            ProviderScope scope,
            dev.sluice.core.telemetry.TenantCounters tenantCounters) {
        this.governor = governor;
        this.id = id;
        this.context = context;
        this.demand = demand;
        this.buckets = buckets;
        this.amounts = amounts == null ? NONE : amounts;
        this.takenAt = takenAt;
        this.readsWallClock = readsWallClock;
        this.fromReserve = fromReserve;
        this.guarantee = guarantee;
        this.admittedNanos = admittedNanos;
        this.waitedNanos = waitedNanos;
        this.leaseExpiryNanos = leaseExpiryNanos;
        this.scope = scope;
        this.tenantCounters = tenantCounters;
    }

    @Override
    public boolean isAdmitted() {
        return true;
    }

    @Override
    public Permit permit() {
        return this;
    }

    @Override
    public Rejection rejection() {
        throw new IllegalStateException("admitted, not rejected");
    }

    /** A number unique within the governor; a lane admission gets it when the governor registers it. */
    public long id() {
        return id;
    }

    /** A permit that stands for no call: the lane's mark on a stack a registration took. */
    static Permit closedMarker() {
        return new Permit(
                null, -1, null, null, new Bucket[0], null, null, false, null, -1, 0, 0, Long.MAX_VALUE, null, null);
    }

    /** Whether the call was admitted through the governor's lock-free lane (see {@link Lane}). */
    boolean admittedThroughLane() {
        return laneDepth > 0;
    }

    /** The lock holder registers a lane admission: its number and its lease. */
    void registered(long permitId, long leaseExpiry) {
        this.id = permitId;
        this.leaseExpiryNanos = leaseExpiry;
        this.laneRoute = null;
        this.laneNext = null;
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

    ProviderScope scope() {
        return scope;
    }

    /**
     * The key of the provider scope this call was admitted in: the organization's once an answer
     * named it, else the call's own (provider, key, model).
     */
    public String providerScopeKey() {
        return scope != null ? scope.key() : context.providerScopeKey();
    }

    /**
     * How old an answer to this call is at {@code nowNanos}, for reading its figures (lock held):
     * counted at {@code countedNanos} when the provider said so (never before the admission, never
     * after now), else as of the admission.
     */
    AnswerAge answerAge(long nowNanos, long countedNanos) {
        long[] marks = admittedMarks;
        if (marks == null) {
            return AnswerAge.CURRENT;
        }
        boolean told = countedNanos != AnswerBacklog.Answer.COUNTED_AT_ADMISSION;
        long counted = !told
                ? admittedNanos
                : countedNanos - admittedNanos < 0
                        ? admittedNanos
                        : countedNanos - nowNanos > 0 ? nowNanos : countedNanos;
        return new AnswerAge(nowNanos - counted, counted, told, buckets, marks, amounts, bucketsSettled);
    }

    /** What this permit charged the bucket, 0 when it did not charge it. */
    long charged(Bucket bucket) {
        for (int i = 0; i < buckets.length; i++) {
            if (buckets[i] == bucket) {
                return amounts[i];
            }
        }
        return 0;
    }

    /**
     * Settles the reservation with what the call actually used: each bucket gets back what was
     * over-reserved or pays what was under. Buckets mirroring a provider that keeps its admission
     * charge (OpenAI tokens) keep it. Exactly once: later calls (and {@link #cancel()}) return false.
     */
    public boolean settle(Usage actual) {
        return requestSettlement(actual == null ? Usage.NONE : actual);
    }

    /**
     * Settles an attempt the provider refused: its requests stay counted where the provider counts
     * refused requests (OpenAI's per-minute limits do), its tokens come back, and its concurrency
     * slot is released.
     */
    public boolean settleRefused(boolean providerCountsRefusedRequests) {
        boolean first = requestSettlement(providerCountsRefusedRequests ? REFUSED_COUNTED : REFUSED_NOT_COUNTED);
        releaseConcurrency();
        return first;
    }

    /**
     * The call never reached the provider (cancelled, failed before sending): everything it
     * reserved comes back, its concurrency slot included.
     */
    public boolean cancel() {
        boolean first = requestSettlement(CANCEL);
        releaseConcurrency();
        return first;
    }

    /**
     * Settles with the actual usage and releases the concurrency slot in one step: what the body
     * of a response does when it ends. Returns false when the permit was already settled.
     */
    public boolean settleAndRelease(Usage actual) {
        if (!SETTLEMENT.compareAndSet(this, null, actual == null ? Usage.NONE : actual)) {
            releaseConcurrency();
            return false;
        }
        if (governor.settleInline(this)) {
            return true; // the lock was free: applied at once, nothing queued
        }
        if ((setState(RELEASE_REQUESTED | QUEUED) & QUEUED) == 0) {
            governor.settlementRequested(this);
        }
        return true;
    }

    /**
     * Marks settlement and release asked for and applied, in one step, by a thread that holds the
     * governor's lock and applies them itself. Returns the state before, so the caller knows which
     * of them were applied already.
     */
    int markSettledAndReleasedInline() {
        return setState(RELEASE_REQUESTED | SETTLE_APPLIED | RELEASE_APPLIED);
    }

    /** Releases the call's concurrency slot (its body or stream ended or was closed). Idempotent. */
    public void releaseConcurrency() {
        if ((setState(RELEASE_REQUESTED) & RELEASE_REQUESTED) == 0) {
            enqueue();
        }
    }

    /**
     * The provider did the work but its usage never arrived (the answer broke before it was read):
     * what was reserved is kept as used, and the concurrency slot comes back.
     */
    public boolean settleAsReserved() {
        boolean first = requestSettlement(AS_RESERVED);
        releaseConcurrency();
        return first;
    }

    /**
     * The lease ran out with the permit still holding something (a stream nobody closed): what it
     * reserved is kept as used, since Sluice cannot know better, and its slot comes back.
     */
    void expireLease() {
        requestSettlement(AS_RESERVED);
        setState(RELEASE_REQUESTED);
        // Queued even when both were requested before: a drain that took them and failed to apply
        // them (a fault in a bucket) left them requested but not applied, and nothing else would
        // ever queue this permit again. The drain applies only what is not applied yet.
        enqueue();
    }

    Governor governor() {
        return governor;
    }

    /** Whether the reservation has been settled (or cancelled). */
    public boolean isSettled() {
        return SETTLEMENT.getVolatile(this) != null;
    }

    /** Whether the concurrency slot has been released. */
    public boolean isReleased() {
        return ((int) STATE.getVolatile(this) & RELEASE_REQUESTED) != 0;
    }

    private boolean requestSettlement(Object request) {
        if (!SETTLEMENT.compareAndSet(this, null, request)) {
            return false;
        }
        enqueue();
        return true;
    }

    private void enqueue() {
        if ((setState(QUEUED) & QUEUED) == 0) { // else a drain will see this request
            governor.settlementRequested(this);
        }
    }

    /** Sets these state bits at once; returns the state before. */
    private int setState(int bits) {
        return (int) STATE.getAndBitwiseOr(this, bits);
    }

    // ------------------------------------------------------------------ applied by the governor

    /** What the drain must apply now; clears QUEUED so later requests queue the permit again. */
    int takeRequests() {
        return (int) STATE.getAndBitwiseAnd(this, ~QUEUED);
    }

    Object settlementRequest() {
        return SETTLEMENT.getVolatile(this);
    }

    void markApplied(int bits) {
        setState(bits);
    }

    /** Takes back applied marks set ahead of a step that then failed (see {@code PermitLedger#applyInline}). */
    void unmarkApplied(int bits) {
        STATE.getAndBitwiseAnd(this, ~bits);
    }

    /** Whether the permit holds nothing any more. */
    boolean isDone() {
        int s = (int) STATE.getVolatile(this);
        return (s & (SETTLE_APPLIED | RELEASE_APPLIED)) == (SETTLE_APPLIED | RELEASE_APPLIED);
    }

    @Override
    public String toString() {
        return "Permit#" + id + "{" + context + ", " + demand + '}';
    }
}
