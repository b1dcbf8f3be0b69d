package dev.sluice.core;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.schedule.Timer;

/**
 * When the timer next offers the waiting calls their turn, while calls wait: as soon as a dispatch
 * pass found room may come back for one of them, at the first deadline, and at least every {@link
 * #SAFETY_TICK_NANOS}, but never sooner than {@link #MIN_WAKE_NANOS} after the pass. Room given
 * back by a settlement or an answer needs no wake-up: whoever gives it back dispatches.
 *
 * <p>Guarded by the governor's lock; the planned pass takes it through {@link Governor#underLock},
 * which dispatches the waiting calls and so plans the next. Itself the timer's task and the work
 * under the lock, not a lambda: the agent builds the governor as the application starts
 * (docs/startup-figures.md).
 */
final class DispatchPacer implements Runnable, Governor.LockedWork<Void> {

    /** How often the timer looks at the queues while calls wait, whatever else it expects. */
    static final long SAFETY_TICK_NANOS = 250_000_000L;

    /** The soonest the timer wakes again: rounding must never turn into a storm of empty passes. */
    static final long MIN_WAKE_NANOS = 100_000L;

    private final Governor governor;
    private final Timer timer;

    /** The planned pass, or null when none is. */
    private Timer.Cancellable task;
    /** When it runs. */
    private long atNanos = Long.MAX_VALUE;
    /** The soonest a dispatch pass found room may come back, while it runs. */
    private long soonestNanos;

    DispatchPacer(Governor governor, Timer timer) {
        this.governor = governor;
        this.timer = timer;
    }

    /** A dispatch pass begins: it has found nothing yet. Lock held. */
    void passBegins() {
        soonestNanos = Long.MAX_VALUE;
    }

    /**
     * The pass found room for a waiting call in {@code nanos} ({@link Bucket#ON_RELEASE} or more:
     * only when calls settle, which dispatch themselves). Lock held.
     */
    void roomIn(long nanos) {
        if (nanos < Bucket.ON_RELEASE && nanos < soonestNanos) {
            soonestNanos = nanos;
        }
    }

    /**
     * The pass ended with calls still waiting ({@code firstDeadline} the one due first, or null):
     * plans the next, unless an earlier one is due already. Lock held.
     */
    void passEnded(long nowNanos, Waiter firstDeadline) {
        long delay = SAFETY_TICK_NANOS;
        if (soonestNanos < delay) {
            delay = Math.max(MIN_WAKE_NANOS, soonestNanos);
        }
        if (firstDeadline != null) {
            delay = Math.min(delay, Math.max(1, firstDeadline.deadlineNanos - nowNanos));
        }
        long at = nowNanos + delay;
        if (task != null && atNanos - nowNanos > 0 && atNanos - at <= 0) {
            return; // an earlier wake-up is already due
        }
        if (task != null) {
            task.cancel();
        }
        atNanos = at;
        task = timer.schedule(this, delay);
    }

    /** The governor closes: no pass any more. Lock held. */
    void cancel() {
        if (task != null) {
            task.cancel();
        }
    }

    /** The timer's task: the planned pass. */
    @Override
    public void run() {
        governor.underLock(this);
    }

    /** Under the lock, before the pass that {@link Governor#underLock} runs next. */
    @Override
    public Void run(long nowNanos) {
        task = null;
        atNanos = Long.MAX_VALUE;
        return null;
    }
}
