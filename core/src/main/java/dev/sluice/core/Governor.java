package dev.sluice.core;

import static dev.sluice.core.Charges.amountFor;
import static dev.sluice.core.Charges.borrowed;
import static dev.sluice.core.Charges.learnedAmounts;
import static dev.sluice.core.Charges.providerCharges;

import dev.sluice.config.Dimension;
import dev.sluice.config.Mode;
import dev.sluice.config.OverloadAction;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.FleetRoom;
import dev.sluice.core.quota.Guarantees;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.quota.ProviderScope;
import dev.sluice.core.quota.TenantShares;
import dev.sluice.core.schedule.ClassQueue;
import dev.sluice.core.schedule.SystemTimer;
import dev.sluice.core.schedule.Timer;
import dev.sluice.core.schedule.TrafficClass;
import dev.sluice.core.schedule.Verdict;
import dev.sluice.core.store.QuotaStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The single door every governed call passes: it admits a call only if every bucket on its path
 * has room, charging them all together or none; otherwise the call waits in its traffic class
 * queue (fairly shared between tenants) until room comes back or its deadline passes. Admitted
 * calls hold a {@link Permit} until they are settled with their actual usage. This class is the
 * engine: admission, queueing, dispatch and settlement, under one lock. What it learns from
 * providers' answers, what operators see and change, and how it is built live beside it
 * ({@link AnswerLearner}, {@link GovernorControls}, {@link GovernorBuilder}).
 *
 * <h2>How it works</h2>
 *
 * <p>One lock guards the whole quota model: LLM call rates are thousands per second, not
 * millions, and a single lock makes every multi-bucket reservation atomic. Waiting never happens
 * while holding it: a waiting caller parks on a future (or gets the future, when asynchronous),
 * and whoever returns capacity, or the timer when room refills, dispatches the queues. Settling a
 * permit does not take the lock: the next admission applies it, or the settling thread does at
 * once when calls are waiting. A provider's answer does not take it either: its figures wait in
 * a backlog the next lock holder applies.
 *
 * <p>One way in skips the lock: when nothing waits and every bucket on a call's path is a local
 * token bucket, the lock holder lends each bucket's room to the calling thread, and its next calls
 * on that path take the lent room with one compare-and-set per bucket ({@link Lane}). Every
 * decision that needs the exact room takes the unused loans back first.
 *
 * <p>An admission ({@link #admitOrQueue}) is answered in this order: the lane; then, under the
 * lock, the fast path (every bucket has room and nobody waits), on the clock reading the timer
 * keeps fresh ({@link TickingClock}) and else on a fresh one; an immediate answer when waiting
 * cannot help ({@link #decideAtOnce}: not admissible, room only after the deadline, observe mode);
 * else the call is queued and {@link #dispatch} offers it its turn whenever something changes.
 * A call whose wait runs out is answered by its class's overload action ({@link #expire}).
 *
 * <h2>Lock discipline</h2>
 *
 * <ul>
 *   <li>{@code lock} guards the quota model: the buckets, provider scopes and routes (through
 *       {@link Routes} and {@link RouteRenewal}), the waiting calls and their deadlines ({@link
 *       WaitingCalls}), the ledger's lease list and permit numbers, the lane's registration, the
 *       reaper's runs ({@link LeaseReaper}), the timer's next dispatch pass ({@link
 *       DispatchPacer}), and the clock reading ({@link TickingClock}). Fields marked "lock" below
 *       are read and written only with it held; {@link #waiting} is written under it and read
 *       without it.
 *   <li>Every change of state follows one sequence, {@link #underLock}: lock, apply what was
 *       settled and answered, act, offer waiting calls what the act gave back, unlock, and only
 *       then complete the futures of the calls that left their queue, so no caller's callback ever
 *       runs under the lock. A change that gives nothing back to waiting calls (a setting, a
 *       provider's pause, a reaper, renewal or clock tick) takes the shorter {@link #holding}:
 *       lock, act, unlock. The collaborators that change state ({@link AnswerLearner}, {@link
 *       GovernorControls}, {@link LeaseReaper}, {@link RouteRenewal}, {@link DispatchPacer},
 *       {@link TickingClock}, and the store through {@link QuotaStore.Host}) take the lock only
 *       through these two. The engine's own paths that take it otherwise (the admission's spin, a
 *       settlement's or a deep lane stripe's try-lock) release it the same way: {@link #unlock}
 *       applies what was queued meanwhile for waiting calls.
 *   <li>Without the lock: the lane (compare-and-set on lent room), {@link PermitLedger#push}
 *       (a lock-free stack of settlements), {@link AnswerBacklog#push} (the same for providers'
 *       rate-limit figures: a caller never waits for the lock to report its answer; the lane is
 *       closed while answers wait, so the next admission applies them), and the volatile flags
 *       the lane reads.
 *   <li>Never under the lock: parking, a future's completion, a store round trip (the store
 *       thread asks for the lock through {@link QuotaStore.Host}), logging ({@link #logLater}).
 * </ul>
 *
 * <h2>What lives elsewhere</h2>
 *
 * <p>The structures the engine works on, each in a class of its own: routes and their scopes
 * ({@link Routes}, {@link RouteRenewal}), the waiting calls ({@link WaitingCalls}; queues and fair
 * shares in {@code schedule}) and the timer's next pass over them ({@link DispatchPacer}), the
 * lane, its lending and registration ({@link Lane}, {@link Backlog}, {@link LaneRun}), the clock
 * reading ({@link TickingClock}), settlements, leases and permit numbers ({@link PermitLedger},
 * {@link LeaseReaper}), the answers' backlog ({@link AnswerBacklog}), what a call charges ({@link
 * Charges}), why a demand does not fit ({@link Shortfall}), budgets ({@link Budgets}), operators'
 * pauses ({@link OperatorPauses}), and the bucket arithmetic ({@code quota}). What does not share
 * the engine's state: building rejections ({@link Rejections}), counting and explaining decisions
 * ({@link GovernorStats}), status views ({@link StatusViews}) and saving and restoring what was
 * learned ({@code state/LearnedState}), both read through {@link GovernorControls}.
 *
 * <p>Sections below: construction; admission; the locked fast path and charging a route; the
 * lock-free lane; the lock and the clock; dispatch; settlement; routes; rejections; introspection;
 * closing.
 */
public final class Governor implements AutoCloseable {

    private static final LazyLogger LOG = LazyLogger.of(Governor.class);

    /** Tries before parking on a lock held for a few hundred nanoseconds. */
    private static final int LOCK_SPINS = 64;

    private static final Bucket[] EMPTY_BUCKETS = new Bucket[0];

    // Configuration, fixed at construction. Package-private fields are read by GovernorControls,
    // AnswerLearner and the other collaborators in this package.

    final Clock clock;
    private final Timer timer;
    final long leaseTimeoutNanos;
    final long probeTimeoutNanos;
    final Limit[] limits;
    /** The same, as the operators' controls give them. */
    final List<Limit> limitList;
    /** Where the buckets a fleet shares live; {@link QuotaStore#local()} when nothing is shared. */
    final QuotaStore store;

    private final boolean sharesAny;
    /** Whether any limit is a budget (spend): only then does admission look for exhausted ones. */
    private final boolean budgetsAny;

    final Guarantees guarantees;

    // The structures: each guards itself or is guarded by the lock, as its class says.

    private final ReentrantLock lock = new ReentrantLock();
    /** The latest clock reading, which the fast path may use stale (lock; the lane reads it without). */
    private final TickingClock ticking;

    private final GovernorStats stats = new GovernorStats();
    /** Settlements waiting (lock-free), the lease list and the permits' numbers (lock). */
    final PermitLedger ledger = new PermitLedger();
    /** Answers whose rate-limit figures wait for the lock (pushed without it, applied with it). */
    private final AnswerBacklog answers = new AnswerBacklog();
    /** Room lent per thread and the lane permits waiting to be registered (lending, registering: lock). */
    final Lane lane;
    /** Releases permits whose lease expired (lock). */
    private final LeaseReaper reaper;
    /** The spend limits as budgets: their standing, settlements and alerts. */
    final Budgets budgets;
    /** The providers' ramps and the timer moving their ceilings (docs/design.md). */
    final Ramps ramps;
    /** The calls waiting, in their class queues, and their deadlines (lock; the weights any thread). */
    final WaitingCalls calls;
    /** Routes and provider scopes (lock; look-ups of a known route any thread). */
    final Routes routes;
    /** Keeps the recent route resolved while it is in use (lock). */
    final RouteRenewal routeRenewal;
    /** Plans the dispatch pass the timer runs next while calls wait (lock). */
    private final DispatchPacer pacer;
    /** Tenants and API keys an operator paused. */
    final OperatorPauses pauses = new OperatorPauses();

    // Beside the engine, sharing its lock discipline.

    /** Learns from providers' answers. */
    private final AnswerLearner learner;
    /** The operators' view. */
    private final GovernorControls controls;

    // Read without the lock: written under it (mode also by the controls, through holding).

    volatile Mode mode;
    /** Calls waiting in the queues: the lane and settling threads read it to know whether anyone waits. */
    volatile int waiting;

    volatile boolean closed;

    // Guarded by lock.

    /** Whether a settlement failed to apply: only the first is logged, off the lock. */
    private boolean settlementFaultLogged;

    // ------------------------------------------------------------------ construction

    Governor(GovernorBuilder b) {
        this.clock = b.clock;
        this.timer = b.timer != null ? b.timer : new SystemTimer();
        this.budgets = new Budgets(clock, timer, new Runnable() {
            @Override
            public void run() {
                learner.learned();
            }
        });
        this.mode = b.mode;
        this.leaseTimeoutNanos = b.leaseTimeout.toNanos();
        this.reaper = new LeaseReaper(this, timer, ledger, stats, leaseTimeoutNanos);
        this.lane = new Lane(ledger, reaper, stats, leaseTimeoutNanos);
        this.pacer = new DispatchPacer(this, timer);
        this.probeTimeoutNanos = b.probeTimeout.toNanos();
        long nowNanos = clock.nanoTime();
        long nowMillis = clock.epochMillis();
        this.ticking = new TickingClock(this, clock, timer, nowNanos);
        this.guarantees = b.guaranteedShares.isEmpty() ? Guarantees.none() : Guarantees.of(b.guaranteedShares);
        this.store = b.store;
        this.sharesAny = store.sharesAny();
        List<Limit> built = new ArrayList<>();
        // not clock::nanoTime: the agent builds the governor as the application starts, and the JVM
        // spins a class for each lambda then (docs/startup-figures.md)
        LongSupplier nanoTime = new LongSupplier() {
            @Override
            public long getAsLong() {
                return clock.nanoTime();
            }
        };
        for (LimitSpec spec : b.limits.values()) {
            built.add(Limit.of(spec, nanoTime, nowNanos, nowMillis, b.leaseTimeout, guarantees, store));
        }
        this.limits = built.toArray(new Limit[0]);
        this.limitList = Collections.unmodifiableList(Arrays.asList(limits));
        boolean spendLimits = false;
        for (Limit l : built) {
            spendLimits |= l.dimension() == Dimension.SPEND;
        }
        this.budgetsAny = spendLimits;
        this.calls = new WaitingCalls(b.classes, b.tenantWeights, b.weightedClasses);
        this.routes = new Routes(limits, guarantees, store, stats, clock, b.coldStartWait.toNanos());
        this.routeRenewal = new RouteRenewal(this, routes, timer, clock);
        this.learner = new AnswerLearner(this, clock, routes, limits, stats, b.adoptHeaderLimits, answers);
        this.controls = new GovernorControls(this);
        this.ramps = new Ramps(this, timer, b.ramps, limits, nowNanos);
        updateLaneGate();
        store.attach(new StoreHost());
    }

    /** The governor as its store sees it: work under the lock, then the queues get their turn. */
    private final class StoreHost implements QuotaStore.Host {
        @Override
        public <T> T withLock(Locked<T> action) {
            return underLock(nowNanos -> action.run(nowNanos, clock.epochMillis()));
        }
    }

    public static GovernorBuilder builder() {
        return new GovernorBuilder();
    }

    /** What the governor learns from providers' answers: their figures, refusals, pauses. */
    public AnswerLearner learner() {
        return learner;
    }

    /** A call to {@code provider} was admitted after waiting {@code waitedNanos}: its ramp counts it. */
    public void rampAdmitted(String provider, long waitedNanos) {
        ramps.admitted(provider, waitedNanos, clock.nanoTime());
    }

    /** {@code provider} answered an attempt with {@code status} after {@code latencyNanos}: its ramp counts it. */
    public void rampAnswered(String provider, int status, long latencyNanos) {
        ramps.answered(provider, status, latencyNanos, clock.nanoTime());
    }

    /** The operators' controls: configuration, where things stand, budgets, live settings, what was learned. */
    public GovernorControls controls() {
        return controls;
    }

    // ------------------------------------------------------------------ admission

    /**
     * Admits a call now or rejects it, never waiting: the form for callers that cannot wait at
     * all. A rejection says when room comes back.
     */
    public Admission tryAdmit(CallContext call, Demand demand) {
        Decided decided = admitOrQueue(call, demand, 0, true);
        return decided.queued() == null ? decided.admission() : rejectQueued(decided.queued());
    }

    /**
     * Admits a call, waiting on the caller's thread while its class and deadline allow.
     *
     * @param deadlineNanos the caller's own deadline ({@link Clock#nanoTime()} based), or 0 for
     *     none; the class's max wait applies on top
     */
    public Admission admit(CallContext call, Demand demand, long deadlineNanos) throws InterruptedException {
        Decided decided = admitOrQueue(call, demand, deadlineNanos, false);
        Waiter queued = decided.queued();
        if (queued == null) {
            return decided.admission();
        }
        try {
            return queued.future.get();
        } catch (InterruptedException e) {
            // a permit that raced with the interrupt reaches nobody: give it back
            if (!queued.future.cancel(false)) {
                Admission raced = queued.future.getNow(null);
                if (raced != null && raced.isAdmitted()) {
                    raced.permit().cancel();
                }
            }
            abandon(queued);
            throw e;
        } catch (ExecutionException e) {
            throw new IllegalStateException("admission future failed", e.getCause());
        }
    }

    /**
     * Admits a call without blocking: the future completes when the call is admitted or rejected.
     * Cancelling the future takes the call out of its queue (and gives back a permit that raced
     * with the cancel).
     */
    public CompletableFuture<Admission> admitAsync(CallContext call, Demand demand, long deadlineNanos) {
        Decided decided = admitOrQueue(call, demand, deadlineNanos, false);
        Waiter queued = decided.queued();
        if (queued == null) {
            return CompletableFuture.completedFuture(decided.admission());
        }
        queued.future.whenComplete((a, error) -> {
            if (queued.future.isCancelled()) {
                abandon(queued);
            }
        });
        return queued.future;
    }

    /**
     * Decides now (fast path, immediate rejection, observe mode) and returns the {@link
     * Admission}, or queues the call and returns its {@link Waiter}.
     *
     * @param tryOnly never wait: a call that does not get through at once is offered its turn in
     *     one dispatch, then leaves the queue
     */
    private Decided admitOrQueue(CallContext call, Demand demand, long callerDeadlineNanos, boolean tryOnly) {
        Permit viaLane = tryLane(call, demand);
        if (viaLane != null) {
            return viaLane;
        }
        Mode m = mode;
        List<Waiter> done = null;
        Decided decided;
        lockQuickly();
        try {
            if (closed || m == Mode.OFF) {
                long nowNanos = now();
                decided = newPermit(call, demand, EMPTY_BUCKETS, null, null, false, null, -1, nowNanos, 0, null, null);
            } else {
                Rejection paused = pauses.any() ? pauses.refusal(call, demand) : null;
                if (paused != null && m == Mode.ENFORCE) {
                    decided = reject(paused);
                } else {
                    decided = decideAtOnce(call, demand, callerDeadlineNanos, tryOnly, m);
                    if (decided == null) {
                        done = new ArrayList<>(2); // the calls this one's arrival lets through
                        decided = enqueue(call, demand, callerDeadlineNanos, tryOnly, done);
                    }
                }
            }
        } finally {
            unlock();
        }
        deliverAll(done);
        return decided;
    }

    /** The answer a call gets without waiting (fast path, immediate rejection, observe mode); null: queue it. */
    private Admission decideAtOnce(CallContext call, Demand demand, long callerDeadlineNanos, boolean tryOnly, Mode m) {
        Route route = route(call);
        boolean windowed = route.windowed();
        if (m == Mode.ENFORCE && waiting == 0 && !windowed && ticking.isTicking()) {
            drainLedger(ticking.latest());
            long stale = ticking.latest(); // after the drain: registering lane permits reads the clock
            Permit p = tryFastPath(call, demand, route, stale, 0);
            if (p != null) {
                ticking.usedStale();
                lane.lend(route, stale);
                return p;
            }
        }
        long nowNanos = now();
        drainLedger(nowNanos);
        long nowMillis = windowed ? clock.epochMillis() : 0;
        if (m == Mode.ENFORCE && waiting == 0) {
            Permit p = tryFastPath(call, demand, route, nowNanos, nowMillis);
            if (p != null) {
                lane.lend(route, nowNanos);
                return p;
            }
        }
        long deadline = tryOnly ? nowNanos + 1 : callerDeadlineNanos;
        Admission now = decideNow(call, demand, route, nowNanos, nowMillis, deadline, m);
        if (now != null && m == Mode.ENFORCE && now.isAdmitted()) {
            lane.lend(route, nowNanos);
        }
        return now;
    }

    /** Queues a call {@link #decideAtOnce} could not answer, at the clock reading it used. Lock held. */
    private Decided enqueue(
            CallContext call, Demand demand, long callerDeadlineNanos, boolean tryOnly, List<Waiter> done) {
        Route route = route(call);
        long nowNanos = ticking.latest();
        long nowMillis = route.windowed() ? clock.epochMillis() : 0;
        long deadline = tryOnly ? nowNanos + 1 : callerDeadlineNanos;
        return enqueue(call, demand, route, nowNanos, nowMillis, deadline, done);
    }

    private Decided enqueue(
            CallContext call,
            Demand demand,
            Route route,
            long nowNanos,
            long nowMillis,
            long callerDeadlineNanos,
            List<Waiter> done) {
        TrafficClass cls = calls.classOf(call);
        long deadline = deadlineFor(cls, nowNanos, callerDeadlineNanos);
        if (calls.isFull(cls)) {
            return overflow(call, demand, route, cls, nowNanos, nowMillis, "full");
        }
        Waiter w = new Waiter(call, demand, cls, deadline, nowNanos);
        route.scope
                .tenantShares()
                .waiting(
                        call.tenant(),
                        calls.weightOf(call.tenant()),
                        route.scope.learnedBuckets(),
                        nowNanos,
                        nowMillis);
        calls.add(w);
        waiting++;
        updateLaneGate();
        stats.onQueued(cls.name());
        dispatch(nowNanos, nowMillis, done);
        return w;
    }

    private static long deadlineFor(TrafficClass cls, long nowNanos, long callerDeadlineNanos) {
        long deadline = nowNanos + cls.maxWaitNanos();
        if (callerDeadlineNanos != 0 && callerDeadlineNanos - deadline < 0) {
            deadline = callerDeadlineNanos;
        }
        return deadline;
    }

    private Admission rejectQueued(Waiter queued) {
        // tryAdmit never waits: if the call did not get through in the dispatch that followed
        // its arrival, it leaves the queue with the reason it would have waited.
        if (queued.future.isDone()) {
            return queued.future.join();
        }
        if (!abandon(queued)) {
            // a dispatch decided it first (admitted, perhaps): its outcome, which the dispatching
            // thread is about to deliver to the future too, is this call's answer
            return queued.outcome;
        }
        lock.lock();
        try {
            long nowNanos = now();
            long nowMillis = clock.epochMillis();
            Route route = route(queued.context);
            Admission broke = budgetExhausted(queued.context, queued.demand, route, nowNanos, nowMillis, 0, false);
            if (broke != null) {
                return broke; // it cannot wait for the reservations in flight to settle
            }
            Shortfall s = shortfall(queued.context, queued.demand, route, nowNanos, nowMillis);
            return reject(Rejections.forShortfall(
                    GatewayDecision.REJECTED_LOCALLY, queued.context, queued.demand, s, 0, null));
        } finally {
            unlock();
        }
    }

    /**
     * The immediate answers when the fast path did not admit: observe mode admits anyway;
     * rejected now when waiting cannot help. Null means: queue it.
     */
    private Admission decideNow(
            CallContext call,
            Demand demand,
            Route route,
            long nowNanos,
            long nowMillis,
            long callerDeadlineNanos,
            Mode m) {
        Shortfall s = shortfall(call, demand, route, nowNanos, nowMillis);
        if (m == Mode.OBSERVE) {
            if (s != null) {
                stats.onObservedWouldDelay(s.never ? GatewayDecision.NOT_ADMISSIBLE : GatewayDecision.REJECTED_LOCALLY);
            }
            return take(call, demand, route, nowNanos, nowMillis, 0);
        }
        if (s == null && waiting == 0) {
            return take(call, demand, route, nowNanos, nowMillis, 0);
        }
        Admission broke = budgetExhausted(call, demand, route, nowNanos, nowMillis, 0, true);
        if (broke != null) {
            return broke;
        }
        if (s != null && s.never) {
            return reject(Rejections.forShortfall(GatewayDecision.NOT_ADMISSIBLE, call, demand, s, 0, null));
        }
        if (s != null
                && s.nanos != Bucket.ON_RELEASE
                && !s.slowStart
                && !s.budgetAwaitsStore(nowMillis)
                && !s.budgetAwaitsSettlements()) {
            long deadline = deadlineFor(calls.classOf(call), nowNanos, callerDeadlineNanos);
            if (nowNanos + s.nanos - deadline > 0) {
                // Room comes back only after the caller's deadline: say so now, not at the deadline.
                return reject(Rejections.forShortfall(GatewayDecision.REJECTED_LOCALLY, call, demand, s, 0, null));
            }
        }
        return null;
    }

    private Admission overflow(
            CallContext call,
            Demand demand,
            Route route,
            TrafficClass cls,
            long nowNanos,
            long nowMillis,
            String reason) {
        Admission broke = budgetExhausted(call, demand, route, nowNanos, nowMillis, 0, false);
        if (broke != null) {
            return broke; // a budget holds even for a class that passes through when its queue is full
        }
        if (cls.overloadAction() == OverloadAction.PASS_THROUGH
                && !Shortfall.providerWouldRefuse(demand, route, probeTimeoutNanos, nowNanos, nowMillis)) {
            stats.onPassedThrough(cls.name());
            return take(call, demand, route, nowNanos, nowMillis, 0);
        }
        Shortfall s = shortfall(call, demand, route, nowNanos, nowMillis);
        return reject(Rejections.forShortfall(GatewayDecision.QUEUE_FULL, call, demand, s, 0, reason));
    }

    /** What is short for a demand on a route ({@link Shortfall#onPath}, then fair shares); null when nothing is. */
    private Shortfall shortfall(CallContext call, Demand demand, Route route, long nowNanos, long nowMillis) {
        Shortfall worst = Shortfall.onPath(demand, route, probeTimeoutNanos, nowNanos, nowMillis);
        if (worst == null) {
            TenantShares.Wait fair = fairWait(call, demand, route, nowNanos, nowMillis);
            if (fair != null) {
                worst = Shortfall.fairShare(fair.bucket, fair.needed, fair.free, fair.nanos);
            }
        }
        return worst;
    }

    /**
     * Whether a call fits beside the shares of the other tenants using its provider scope now
     * (see {@link TenantShares}): null when it does, else why and for how long it waits. Lock held.
     */
    TenantShares.Wait fairWait(CallContext call, Demand demand, Route route, long nowNanos, long nowMillis) {
        Bucket[] learned = route.scope.learnedBuckets();
        TenantShares shares = route.scope.tenantShares();
        if (learned.length == 0 || shares.laneServes(call.tenant())) {
            // nothing to share, or the caller is the scope's only active tenant: no allocation, no
            // walk (a second tenant's first call goes through waitFor, which ends that)
            return null;
        }
        long[] amounts = new long[learned.length];
        for (int i = 0; i < learned.length; i++) {
            amounts[i] = learned[i].limit().enforced() ? amountFor(learned[i], demand) : 0;
        }
        return shares.waitFor(
                call.tenant(), calls.weightOf(call.tenant()), route.guarantee, learned, amounts, nowNanos, nowMillis);
    }

    // ------------------------------------------------------------------ the locked fast path, charging a route

    /** Admits at once if every bucket has room: one pass computing amounts and checking room. */
    private Permit tryFastPath(CallContext call, Demand demand, Route route, long nowNanos, long nowMillis) {
        Bucket[] buckets = route.buckets();
        if (route.scope.nanosUntilOpen(nowNanos, probeTimeoutNanos) != 0) {
            return null;
        }
        int g = route.guarantee;
        long[] amounts = new long[buckets.length];
        for (int i = 0; i < buckets.length; i++) {
            Bucket b = buckets[i];
            long amount = amountFor(b, demand);
            amounts[i] = amount;
            if (amount != 0
                    && b.limit().enforced()
                    && b.roomOnFastPath(g, nowNanos, nowMillis) < b.roomNeeded(g, amount)) {
                return null;
            }
        }
        if (fairWait(call, demand, route, nowNanos, nowMillis) != null) {
            return null;
        }
        return take(call, demand, route, buckets, amounts, nowNanos, nowMillis, 0);
    }

    private Permit take(CallContext call, Demand demand, Route route, long nowNanos, long nowMillis, long waitedNanos) {
        Bucket[] buckets = route.buckets();
        long[] amounts = new long[buckets.length];
        for (int i = 0; i < buckets.length; i++) {
            amounts[i] = amountFor(buckets[i], demand);
        }
        return take(call, demand, route, buckets, amounts, nowNanos, nowMillis, waitedNanos);
    }

    /** Charges every bucket on the route; the caller checked room (or is in observe mode). */
    private Permit take(
            CallContext call,
            Demand demand,
            Route route,
            Bucket[] buckets,
            long[] amounts,
            long nowNanos,
            long nowMillis,
            long waitedNanos) {
        int g = route.guarantee;
        long[] takenAt = route.tracked() ? new long[buckets.length] : null;
        long[] fromReserve = g >= 0 ? new long[buckets.length] : null;
        for (int i = 0; i < buckets.length; i++) {
            long amount = amounts[i];
            if (amount == 0) {
                continue;
            }
            Bucket b = buckets[i];
            if (fromReserve != null) {
                fromReserve[i] = b.takeReserved(g, amount, nowNanos, nowMillis);
            }
            long taken = b.reserve(amount, nowNanos, nowMillis);
            if (takenAt != null) {
                takenAt[i] = taken;
            }
        }
        Permit permit = newPermit(
                call,
                demand,
                buckets,
                amounts,
                takenAt,
                route.readsWallClock(),
                fromReserve,
                g,
                nowNanos,
                waitedNanos,
                route.scope,
                route.tenantCounters);
        long[] marks = new long[buckets.length];
        for (int i = 0; i < buckets.length; i++) {
            marks[i] = buckets[i].admittedTotal();
        }
        permit.admittedMarks = marks;
        Bucket[] learned = route.scope.learnedBuckets();
        if (learned.length > 0) {
            permit.fairCounted = route.scope
                    .tenantShares()
                    .admitted(
                            call.tenant(),
                            calls.weightOf(call.tenant()),
                            learned,
                            learnedAmounts(learned, buckets, amounts),
                            nowNanos,
                            nowMillis);
        }
        if (route.scope.admitted(nowNanos)) {
            permit.probe = true;
        }
        if (route.scope.countsSlowStart()) {
            long[] charges = providerCharges(demand);
            route.scope.slowStartAdmitted(charges);
            permit.slowStartCharges = charges;
            permit.slowStartAnswer = true;
        }
        stats.onAdmitted(
                route.classCounters,
                route.tenantCounters,
                demand.totalTokens(),
                fromReserve == null ? 0 : borrowed(demand, buckets, amounts, fromReserve),
                waitedNanos);
        if (waitedNanos >= 1_000_000L) {
            stats.onAdmittedAfterWaiting(call, waitedNanos, clock.epochMillis());
        }
        return permit;
    }

    private Permit newPermit(
            CallContext call,
            Demand demand,
            Bucket[] buckets,
            long[] amounts,
            long[] takenAt,
            boolean readsWallClock,
            long[] fromReserve,
            int guarantee,
            long nowNanos,
            long waitedNanos,
            ProviderScope scope,
            dev.sluice.core.telemetry.TenantCounters tenantCounters) {
        Permit p = new Permit(
                this,
                ledger.nextId(),
                call,
                demand,
                buckets,
                amounts,
                takenAt,
                readsWallClock,
                fromReserve,
                guarantee,
                nowNanos,
                waitedNanos,
                nowNanos + leaseTimeoutNanos,
                scope,
                tenantCounters);
        if (scope != null) {
            ledger.append(p);
            reaper.withinALease();
        }
        return p;
    }

    // ------------------------------------------------------------------ the lock-free lane

    /**
     * Admits through the lane when nothing needs the lock: enforce mode, nobody waiting, no
     * operator or provider pause, and a path whose buckets all lent enough room to this thread.
     * Null sends the call to the lock.
     */
    private Permit tryLane(CallContext call, Demand demand) {
        if (!lane.isOpen() || !answers.isEmpty()) {
            return null;
        }
        Route route = routes.forLane(call);
        if (route == null) {
            return null;
        }
        Route.LanePath path = route.lanePath();
        // an evicted bucket lends nothing (it emptied its stripes), so the buckets need no check
        if (path == null
                || !route.scope.openToLane()
                || route.scope.isEvicted()
                || (route.scope.learnedBuckets().length != 0
                        && !route.scope.tenantShares().laneServes(call.tenant()))) {
            return null;
        }
        int stripe = Lane.stripe();
        long[] amounts = Lane.take(path, demand, stripe);
        if (amounts == null) {
            return null;
        }
        long[] lentMoments = new long[amounts.length];
        long admittedNanos = Lane.lentAtNanos(path, amounts, stripe, lentMoments);
        if (admittedNanos == Long.MIN_VALUE) {
            admittedNanos = ticking.latestOpaque(); // took no room: the latest reading will do
        }
        Permit p = new Permit(
                this,
                0,
                call,
                demand,
                path.buckets,
                amounts,
                lentMoments,
                false,
                null,
                -1,
                admittedNanos,
                0,
                Long.MAX_VALUE,
                route.scope,
                route.tenantCounters);
        p.laneRoute = route;
        int backlog = lane.push(p, stripe);
        if (Backlog.mustWait(backlog)) {
            registerLaneStripeNow(stripe);
        } else if (Backlog.shouldTry(backlog)) {
            registerLaneStripeIfFree(stripe);
        }
        return p;
    }

    /** Opens the lane when nothing needs the lock's judgement: enforce mode, nobody waiting, no pause. Lock held. */
    void updateLaneGate() {
        lane.setOpen(mode == Mode.ENFORCE && waiting == 0 && !pauses.any() && !closed);
    }

    /**
     * A lane stripe grew deep while nobody took the lock: its own thread registers it now (its
     * permits are in this core's cache), if the lock is free; else the holder does.
     */
    private void registerLaneStripeIfFree(int stripe) {
        if (lock.tryLock()) {
            try {
                lane.register(stripe, now());
            } finally {
                unlock();
            }
        }
    }

    /** The stripe is so deep that its thread waits for the lock: the lane may not outrun registration. */
    private void registerLaneStripeNow(int stripe) {
        lock.lock();
        try {
            lane.register(stripe, now());
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------------ the lock and the clock

    /** Work done under the lock at one clock reading. */
    interface LockedWork<T> {
        T run(long nowNanos);
    }

    /**
     * The sequence every change of state follows: take the lock, apply what was settled, do the
     * work, offer waiting calls what it gave back, release the lock, and only then complete the
     * futures of the calls that left their queue (their callbacks must never run under the lock).
     */
    <T> T underLock(LockedWork<T> work) {
        List<Waiter> done;
        T result;
        lock.lock();
        try {
            long nowNanos = now();
            drainLedger(nowNanos);
            result = work.run(nowNanos);
            done = dispatchWaiting(nowNanos);
        } finally {
            unlock();
        }
        deliverAll(done);
        return result;
    }

    /**
     * Work under the lock that gives nothing back to waiting calls (a setting, a pause): lock, act,
     * unlock; the unlock still applies what was queued meanwhile for waiting calls ({@link #unlock}).
     */
    <T> T holding(Supplier<T> work) {
        lock.lock();
        try {
            return work.get();
        } finally {
            unlock();
        }
    }

    private void lockQuickly() {
        for (int i = 0; i < LOCK_SPINS; i++) {
            if (lock.tryLock()) {
                return;
            }
            Thread.onSpinWait();
        }
        lock.lock();
    }

    /**
     * Releases the lock, then applies what was queued while it was held if calls wait for it (see
     * {@link #settlementRequested}: a settling thread that finds the lock busy leaves its permit to
     * the holder rather than wait, so an event loop settling a call never blocks on the lock). The
     * settling thread pushes, then tries the lock; the holder unlocks, then looks at the queue:
     * whichever comes second sees the other.
     */
    private void unlock() {
        lock.unlock();
        if (queuedForWaitingCalls() && lock.tryLock()) {
            applyQueuedAndUnlock();
        }
    }

    /** Calls wait, something they may need is queued, and this thread does not still hold the lock (taken twice). */
    private boolean queuedForWaitingCalls() {
        return waiting > 0 && (ledger.hasPending() || !answers.isEmpty()) && !lock.isHeldByCurrentThread();
    }

    /**
     * Work queued without the lock (settlements, providers' answers) is applied by the thread
     * that queued it if the lock is free; else the holder, or the next admission, does.
     */
    void applyQueuedIfFree() {
        if (lock.tryLock()) {
            applyQueuedAndUnlock();
        }
    }

    private void applyQueuedNow() {
        lock.lock();
        applyQueuedAndUnlock();
    }

    /**
     * Applies the queued settlements and answers, offers waiting calls what came back, and releases
     * the lock held; again while more was queued for waiting calls meanwhile and the lock is free.
     */
    private void applyQueuedAndUnlock() {
        do {
            List<Waiter> done = null;
            try {
                long nowNanos = now();
                if (drainLedger(nowNanos)) {
                    done = dispatchWaiting(nowNanos);
                }
            } finally {
                lock.unlock();
            }
            deliverAll(done);
        } while (queuedForWaitingCalls() && lock.tryLock());
    }

    /**
     * Registers the lane's permits (number, lease, counters, lease list), applies queued
     * settlements, then the providers' answers that wait (last: an answer is read against what
     * was admitted since its call, lane admissions included). Lock held.
     *
     * @return whether any capacity came back or an answer changed the quota model
     */
    boolean drainLedger(long nowNanos) {
        if (lane.hasUnregistered()) {
            lane.registerAll(now());
        }
        boolean settled = ledger.drain(nowNanos, clock, stats);
        RuntimeException fault = ledger.takeFault();
        if (fault != null && !settlementFaultLogged) {
            settlementFaultLogged = true;
            logLater(
                    "sluice: a settlement could not be applied; what it holds is tried again when its lease runs out",
                    fault);
        }
        return learner.applyAnswers(nowNanos) | settled;
    }

    /** Offers waiting calls their turn; returns those that left the queue, to deliver once unlocked. Lock held. */
    private List<Waiter> dispatchWaiting(long nowNanos) {
        if (waiting == 0 || closed) {
            return null;
        }
        List<Waiter> done = new ArrayList<>(2);
        dispatch(nowNanos, clock.epochMillis(), done);
        return done;
    }

    private static void deliverAll(List<Waiter> done) {
        if (done != null) {
            for (Waiter w : done) {
                w.deliver();
            }
        }
    }

    /** Reads the clock, keeping the latest reading for the fast path ({@link TickingClock}). Lock held. */
    long now() {
        return ticking.read();
    }

    /** Logs on the timer's thread: never under the lock, never on the thread of a caller it does not concern. */
    void logLater(String message, RuntimeException fault) {
        timer.schedule(() -> LOG.get().warn(message, fault), 0);
    }

    // ------------------------------------------------------------------ dispatch

    /** Offers queued calls their turn, by class priority and fair share. Lock held. */
    private void dispatch(long nowNanos, long nowMillis, List<Waiter> done) {
        expireDeadlines(nowNanos, nowMillis, done);
        pacer.passBegins();
        calls.dispatch((w, claim) -> offer(w, claim, nowNanos, done));
        if (waiting > 0) {
            pacer.passEnded(nowNanos, calls.firstDeadline());
        }
    }

    /**
     * Whether a claim on a bucket holds this waiter back: under strict priority a call of a
     * higher class takes over the claims of lower classes, so a batch call waiting for a large
     * refill does not hold back an interactive one.
     */
    boolean heldBackBy(Object claimant, Waiter w) {
        if (claimant == null || claimant == w) {
            return false;
        }
        return calls.weightedClasses() || ((Waiter) claimant).trafficClass.priority() >= w.trafficClass.priority();
    }

    private Verdict offer(Waiter w, boolean mayClaim, long nowNanos, List<Waiter> done) {
        if (w.done) {
            return Verdict.GONE;
        }
        Route route = route(w.context);
        long nowMillis = route.windowed() ? clock.epochMillis() : 0;
        if (nowNanos - w.deadlineNanos >= 0) {
            expire(w, route, nowNanos, nowMillis, done);
            return Verdict.GONE;
        }
        long gate = route.scope.nanosUntilOpen(nowNanos, probeTimeoutNanos);
        if (gate != 0) {
            pacer.roomIn(gate);
            return Verdict.NOT_NOW;
        }
        Bucket[] buckets = route.buckets();
        for (Bucket b : buckets) {
            if (heldBackBy(b.claimant(), w) && b.limit().enforced() && amountFor(b, w.demand) > 0) {
                return Verdict.NOT_NOW;
            }
        }
        if (budgetsAny) {
            long budgetNowMillis = nowMillis != 0 ? nowMillis : clock.epochMillis();
            Admission broke = budgetExhausted(
                    w.context, w.demand, route, nowNanos, budgetNowMillis, nowNanos - w.enqueuedNanos, true);
            if (broke != null) {
                leaveQueue(w, broke, done);
                return Verdict.GONE;
            }
        }
        boolean shortNow = false;
        boolean shortLocally = false;
        for (Bucket b : buckets) {
            long amount = amountFor(b, w.demand);
            if (amount == 0 || !b.limit().enforced()) {
                continue;
            }
            long need = b.roomNeeded(route.guarantee, amount);
            if (b.roomFor(route.guarantee, nowNanos, nowMillis) < need) {
                shortNow = true;
                FleetRoom fleet = b.fleetRoom();
                shortLocally |= fleet == null || !fleet.grants(nowMillis);
                if (mayClaim && b.claimant() != w && !heldBackBy(b.claimant(), w)) {
                    w.claim(b);
                }
                pacer.roomIn(b.nanosUntilRoomFor(route.guarantee, need, nowNanos, nowMillis));
            }
        }
        if (shortNow) {
            if (sharesAny && !shortLocally) {
                askStore(w, buckets);
            }
            return Verdict.NOT_NOW;
        }
        TenantShares.Wait fair = fairWait(w.context, w.demand, route, nowNanos, nowMillis);
        if (fair != null) {
            // the room is other tenants' share: no claim on it, so they can take it meanwhile
            w.releaseClaims();
            pacer.roomIn(fair.nanos);
            return Verdict.NOT_NOW;
        }
        w.releaseClaims();
        Permit permit = take(w.context, w.demand, route, nowNanos, nowMillis, nowNanos - w.enqueuedNanos);
        leaveQueue(w, permit, done);
        return Verdict.ADMITTED;
    }

    /**
     * The call waits only for shared room: the store reserves exactly what it needs, off the lock
     * (the call stays queued meanwhile), and dispatches again when it arrives.
     */
    private void askStore(Waiter w, Bucket[] buckets) {
        long[] amounts = new long[buckets.length];
        for (int i = 0; i < buckets.length; i++) {
            Bucket b = buckets[i];
            amounts[i] = b.isShared() && b.limit().enforced() ? amountFor(b, w.demand) : 0;
        }
        store.want(w, buckets, amounts);
    }

    private void expireDeadlines(long nowNanos, long nowMillis, List<Waiter> done) {
        Waiter w;
        while ((w = calls.pollDue(nowNanos)) != null) {
            Route route = route(w.context);
            expire(w, route, nowNanos, route.windowed() ? clock.epochMillis() : nowMillis, done);
        }
    }

    private void expire(Waiter w, Route route, long nowNanos, long nowMillis, List<Waiter> done) {
        Admission broke =
                budgetExhausted(w.context, w.demand, route, nowNanos, nowMillis, nowNanos - w.enqueuedNanos, false);
        if (broke != null) {
            leaveQueue(w, broke, done);
            return;
        }
        if (w.trafficClass.overloadAction() == OverloadAction.PASS_THROUGH
                && !Shortfall.providerWouldRefuse(w.demand, route, probeTimeoutNanos, nowNanos, nowMillis)) {
            stats.onPassedThrough(w.trafficClass.name());
            w.releaseClaims();
            leaveQueue(w, take(w.context, w.demand, route, nowNanos, nowMillis, nowNanos - w.enqueuedNanos), done);
            return;
        }
        Shortfall s = shortfall(w.context, w.demand, route, nowNanos, nowMillis);
        if (s != null && s.slowStart && route.scope.slowStartAdmitsAtDeadline()) {
            // held only by a cold scope's slow start with few calls out: not knowing is no reason
            // to refuse one call, but a herd whose waits end together does not go at once
            w.releaseClaims();
            leaveQueue(w, take(w.context, w.demand, route, nowNanos, nowMillis, nowNanos - w.enqueuedNanos), done);
            return;
        }
        Rejection r = Rejections.forShortfall(
                GatewayDecision.QUEUE_DEADLINE_EXCEEDED,
                w.context,
                w.demand,
                s,
                nowNanos - w.enqueuedNanos,
                "deadline");
        leaveQueue(w, reject(r), done);
    }

    private void leaveQueue(Waiter w, Admission outcome, List<Waiter> done) {
        w.done = true;
        w.releaseClaims();
        if (sharesAny) {
            store.forget(w);
        }
        w.outcome = outcome;
        waiting--;
        updateLaneGate();
        done.add(w);
    }

    /**
     * The caller gave up (interrupted, future cancelled): take it out of its queue.
     *
     * @return false when it had already left the queue, with {@link Waiter#outcome} set
     */
    private boolean abandon(Waiter w) {
        // its claims may have been holding others back: they get their turn
        return underLock(nowNanos -> {
            if (w.done) {
                return false;
            }
            calls.remove(w);
            w.done = true;
            w.releaseClaims();
            if (sharesAny) {
                store.forget(w);
            }
            waiting--;
            updateLaneGate();
            stats.onAbandoned(w.trafficClass.name());
            return true;
        });
    }

    // ------------------------------------------------------------------ settlement

    /**
     * A permit asked to be settled or released. Applied now when calls wait for what it gives
     * back, by this thread if the lock is free, else by the holder as it unlocks; otherwise the
     * next admission applies it under the lock it takes anyway. Waits for the lock only when the
     * governor is closing or the queue is very deep ({@link Backlog#mustWait}).
     */
    void settlementRequested(Permit p) {
        int backlog = ledger.push(p);
        if (closed || Backlog.mustWait(backlog)) {
            applyQueuedNow();
        } else if (waiting > 0 || Backlog.shouldTry(backlog)) {
            // Calls wait for what it gives back: if the lock is busy, its holder applies it as it
            // unlocks (see unlock()). Without waiting calls, every TRY_EVERY: admissions through
            // the lane take no lock, so settlements must not pile up.
            applyQueuedIfFree();
        }
    }

    /**
     * Applies a settlement and release on the settling thread if the lock is free at once; false
     * means it is busy and the permit must be queued instead. Uses the latest clock reading: a
     * refund adds room under the cap, which comes out the same whenever the refill is applied.
     */
    boolean settleInline(Permit p) {
        if (!lock.tryLock()) {
            return false;
        }
        List<Waiter> done = null;
        try {
            // a lane permit may be settled before it is registered: the next drain registers it
            ledger.applyInline(p, ticking.latest(), clock, stats);
            if (waiting > 0 && !closed) {
                long nowNanos = now();
                drainLedger(nowNanos);
                done = dispatchWaiting(nowNanos);
            }
        } finally {
            unlock();
        }
        deliverAll(done);
        return true;
    }

    // ------------------------------------------------------------------ routes

    /** The call's route, resolved if it is not known. Lock held. */
    Route route(CallContext call) {
        Route known = routes.known(call);
        return known != null ? known : resolve(call);
    }

    /** Resolves the call's route, which becomes the recent one, renewed while in use. Lock held. */
    private Route resolve(CallContext call) {
        Route route = routes.build(call, now(), clock.epochMillis());
        routeRenewal.resolved();
        return route;
    }

    // ------------------------------------------------------------------ rejections

    /**
     * The refusal of a call that a budget (a spend limit) has no room for ({@link Budgets#refusal}),
     * counted; null when none refuses it. Lock held.
     */
    private Admission budgetExhausted(
            CallContext call,
            Demand demand,
            Route route,
            long nowNanos,
            long nowMillis,
            long waitedNanos,
            boolean mayWait) {
        if (!budgetsAny || mode != Mode.ENFORCE) {
            return null;
        }
        Rejection r = budgets.refusal(
                call, demand, route.buckets(), route.guarantee, nowNanos, nowMillis, waitedNanos, mayWait);
        return r == null ? null : reject(r);
    }

    private Admission reject(Rejection r) {
        stats.onRejected(r, clock.epochMillis());
        return Admission.rejected(r);
    }

    // ------------------------------------------------------------------ introspection

    public Mode mode() {
        return mode;
    }

    public Clock clock() {
        return clock;
    }

    /** The governor's timer thread, shared with the exchange engine for its own delays. */
    public Timer timer() {
        return timer;
    }

    public GovernorStats stats() {
        if (lane.hasUnregistered() && !lock.isHeldByCurrentThread()) {
            applyQueuedNow(); // counts lane admissions not yet registered, so the figures are current
        }
        return stats;
    }

    /** Whether any limit is a budget (a spend limit): only then must a call be priced before it is admitted. */
    public boolean hasBudgets() {
        return budgetsAny;
    }

    Budgets budgets() {
        return budgets;
    }

    // ------------------------------------------------------------------ closing

    /** Stops the timer; waiting calls are rejected, permits stay valid and may still be settled. */
    @Override
    public void close() {
        List<Waiter> done = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            updateLaneGate();
            long nowNanos = clock.nanoTime();
            ticking.closing(nowNanos);
            drainLedger(nowNanos);
            for (ClassQueue<Waiter> q : calls.byPriority()) {
                for (Waiter w : q.all()) {
                    q.remove(w);
                    Rejection r = Rejections.forCall(GatewayDecision.REJECTED_LOCALLY, w.context, w.demand)
                            .waitedMillis((nowNanos - w.enqueuedNanos) / 1_000_000)
                            .queueReason("shutdown")
                            .detail("governor closed")
                            .build();
                    leaveQueue(w, Admission.rejected(r), done);
                }
            }
            pacer.cancel();
            reaper.cancel();
            routeRenewal.cancel();
        } finally {
            unlock();
        }
        deliverAll(done);
        store.close(); // gives back what this JVM leased; takes the lock itself
        timer.shutdown();
    }
}
