package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.AnswerAge;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.quota.ProviderScope;
import dev.sluice.core.retry.WaitHints;
import java.util.function.Supplier;

/**
 * What the governor learns from providers' answers: the budgets and organization an answer's
 * headers announce ({@link #learn}), whether an attempt was accepted ({@link #answered}: a probe's
 * answer ends a pause, a slow start widens, a pace set by refusals climbs back), a refusal for
 * capacity that Sluice had room for ({@link #capacityRefused}: consumers Sluice cannot see took
 * it), and a wait the provider asked for ({@link #pauseProviderScope}). Each becomes part of the
 * quota model in the answer's provider scope ({@link ProviderScope}, {@code quota/AnswerAge},
 * {@code ExternalShare}, {@code AdaptivePace}, {@code RecentRate}).
 *
 * <p>It shares the governor's lock and its discipline, taking the lock only through the
 * governor's own sequence ({@link Governor#underLock}, {@link Governor#holding}). An answer's
 * figures do not wait for the lock at all: they join a lock-free stack ({@link AnswerBacklog}),
 * applied by this thread when the lock is free, else by its holder or the next admission (the
 * lock-free lane is closed while answers wait), through {@link #applyAnswers}.
 */
public final class AnswerLearner {

    private final Governor governor;
    private final Clock clock;
    private final Routes routes;
    private final Limit[] limits;
    private final GovernorStats stats;
    private final boolean adoptHeaderLimits;
    /** Answers whose figures wait for the lock; the governor's lane reads whether it is empty. */
    private final AnswerBacklog answers;

    /** Whether an answer's figures failed to apply (guarded by the lock): only the first is logged, off the lock. */
    private boolean answerFaultLogged;

    /** Told after each change worth keeping across a restart (a budget learned, a pause); null: nobody. */
    private volatile Runnable onLearned;

    AnswerLearner(
            Governor governor,
            Clock clock,
            Routes routes,
            Limit[] limits,
            GovernorStats stats,
            boolean adoptHeaderLimits,
            AnswerBacklog answers) {
        this.governor = governor;
        this.clock = clock;
        this.routes = routes;
        this.limits = limits;
        this.stats = stats;
        this.adoptHeaderLimits = adoptHeaderLimits;
        this.answers = answers;
    }

    // ------------------------------------------------------------------ an answer's figures

    /**
     * Learns what an answer announced for its call's scope: new budgets become buckets charged like
     * the provider charges; lower remaining figures win over Sluice's own view; a named
     * organization makes every key of it count in one scope from now on. Never waits for the lock.
     */
    public void learn(ProviderAnswer answer) {
        if (answer.isEmpty()) {
            return;
        }
        long countedNanos = answer.answered == null || answer.processingMillis < 0
                ? AnswerBacklog.Answer.COUNTED_AT_ADMISSION
                : clock.nanoTime() - Math.min(answer.processingMillis, WaitHints.MAX_MILLIS) * 1_000_000L;
        answers.push(new AnswerBacklog.Answer(answer, countedNanos));
        governor.applyQueuedIfFree(); // else the holder or the next admission applies it: the lane is closed meanwhile
        learned();
    }

    /** Applies the answers waiting in the backlog, oldest first; whether there were any. Lock held. */
    boolean applyAnswers(long nowNanos) {
        AnswerBacklog.Answer a = answers.takeAll();
        if (a == null) {
            return false;
        }
        long nowMillis = clock.epochMillis();
        for (; a != null; a = a.next) {
            try {
                apply(a.answer, a.countedNanos, nowNanos, nowMillis);
            } catch (RuntimeException fault) {
                // another caller's admission applies it: one bad answer must not fail that call
                if (!answerFaultLogged) {
                    answerFaultLogged = true;
                    governor.logLater(
                            "sluice: a provider's rate-limit figures could not be applied; they are skipped", fault);
                }
            }
        }
        return true;
    }

    private void apply(ProviderAnswer a, long countedNanos, long nowNanos, long nowMillis) {
        AnswerAge age = a.answered == null ? AnswerAge.CURRENT : a.answered.answerAge(nowNanos, countedNanos);
        if (a.organization != null) {
            routes.adoptOrganization(a.call, a.organization, nowNanos);
        }
        ProviderScope scope = governor.route(a.call).scope;
        for (LearnedBudget b : a.budgets) {
            long ceiling = adoptHeaderLimits ? Long.MAX_VALUE : configuredCeiling(a.call, b);
            long burstCeiling = burstCeiling(a, b);
            scope.learn(
                    b.name,
                    b.dimension,
                    b.limit,
                    b.remaining,
                    b.windowMillis,
                    ceiling,
                    burstCeiling,
                    age,
                    nowNanos,
                    nowMillis);
        }
    }

    /**
     * The most a learned budget lets through at once: the least burst of the configured limits
     * mirroring it; 0 when none does (it lets through what the provider shows, see ProviderScope).
     */
    private long burstCeiling(ProviderAnswer a, LearnedBudget b) {
        long most = Long.MAX_VALUE;
        for (Limit l : limits) {
            if (mirrors(l, a.call, b)) {
                most = Math.min(most, l.burst());
            }
        }
        return most == Long.MAX_VALUE ? 0 : most;
    }

    private static boolean mirrors(Limit l, CallContext call, LearnedBudget b) {
        LimitSpec s = l.spec();
        return s.mirrorsProvider()
                && s.dimension() == b.dimension
                && s.window() != null
                && s.window().toMillis() == b.windowMillis
                && l.appliesTo(call);
    }

    /** The least capacity of the configured limits mirroring this budget for this call. */
    private long configuredCeiling(CallContext call, LearnedBudget b) {
        long ceiling = Long.MAX_VALUE;
        for (Limit l : limits) {
            if (mirrors(l, call, b)) {
                ceiling = Math.min(ceiling, l.capacity());
            }
        }
        return ceiling;
    }

    // ------------------------------------------------------------------ what became of an attempt

    /** The provider answered an attempt made with this permit; a probe's answer opens or keeps the pause. */
    public void answered(Permit permit, boolean accepted) {
        ProviderScope scope = permit.scope();
        boolean raisesPace = scope != null && scope.answered(accepted, clock.nanoTime());
        // Otherwise only a probe's answer, or one of a slow start's, changes anything. The flags
        // were set before the permit reached its caller and only this call clears them, so
        // reading them first spares every other answer the lock.
        if (!permit.probe && !permit.slowStartAnswer && !raisesPace) {
            return;
        }
        governor.underLock(new Governor.LockedWork<Object>() {
            @Override
            public Object run(long nowNanos) {
                if (permit.probe) {
                    permit.probe = false;
                    permit.scope().probeAnswered(accepted);
                }
                if (permit.slowStartAnswer) {
                    permit.slowStartAnswer = false;
                    if (accepted) {
                        permit.scope().slowStartAccepted();
                    }
                }
                if (raisesPace) {
                    scope.answerRaisesPace(nowNanos, clock.epochMillis());
                }
                return null;
            }
        });
    }

    /**
     * The provider refused the call admitted with {@code permit} for capacity though Sluice had room
     * for it on every bucket: consumers Sluice cannot see took it, so the call's scope leaves them
     * more at once. A refusal of a call admitted before an earlier refusal had its effect is the
     * same evidence again (see {@code ExternalShare#surprised}).
     *
     * @param limiter the dimension the refusal named ({@code ProviderError.limiter()}), or null
     * @param pacedByRefusals the provider's answers never tell its limits: the refusal sets the
     *     scope's pace instead
     */
    public void capacityRefused(Permit permit, Dimension limiter, boolean pacedByRefusals) {
        governor.underLock(nowNanos -> {
            governor.route(permit.context())
                    .scope
                    .refusedDespiteRoom(
                            limiter, pacedByRefusals, permit.admittedNanos(), nowNanos, clock.epochMillis());
            return null;
        });
    }

    /** As {@link #capacityRefused(Permit, Dimension, boolean)}, for a call whose admission is not known: as of now. */
    public void capacityRefused(CallContext call, Dimension limiter, boolean pacedByRefusals) {
        governor.underLock(nowNanos -> {
            governor.route(call)
                    .scope
                    .refusedDespiteRoom(limiter, pacedByRefusals, nowNanos, nowNanos, clock.epochMillis());
            return null;
        });
    }

    /**
     * The provider asked callers of this scope to wait: every call through it waits (not just the
     * one that was told), and when the pause ends one probe goes first.
     */
    public void pauseProviderScope(CallContext call, long pauseNanos) {
        if (pauseNanos <= 0) {
            return;
        }
        governor.holding(new Supplier<Object>() {
            @Override
            public Object get() {
                long nowNanos = governor.now();
                governor.route(call).scope.pauseUntil(nowNanos + pauseNanos);
                stats.onProviderPause();
                return null;
            }
        });
        learned();
    }

    // ------------------------------------------------------------------ what is worth keeping

    /** Registers who keeps the learned state (the state file); called outside the lock. */
    public void onLearned(Runnable listener) {
        this.onLearned = listener;
    }

    /** Something worth keeping across a restart changed (a budget learned or spent, a pause). */
    void learned() {
        Runnable r = onLearned;
        if (r != null) {
            try {
                r.run();
            } catch (RuntimeException ignored) {
                // keeping state is a convenience: it never fails a call
            }
        }
    }
}
