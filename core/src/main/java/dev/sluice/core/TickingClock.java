package dev.sluice.core;

import dev.sluice.core.schedule.Timer;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;

/**
 * The governor's latest clock reading, which the admission fast path may use stale. Reading the
 * clock costs tens of nanoseconds on virtual machines, as much as the rest of an admission; a
 * bucket's last-known state is a safe basis for admitting (a token bucket only gains room with
 * time, a pause only ends), so while admissions keep coming the timer refreshes the reading every
 * {@link #TICK_NANOS} and the fast path uses it. Anything that does not fit at the stale time is
 * decided again on a fresh reading. The price: a bucket that another call refilled to a fresh
 * reading may hand that room to a call admitted at the stale one, so over a short interval
 * measured in real time a token bucket can pass on at most one tick's refill more than a strict
 * bucket would (1 % of a 10 s window, 0.17 % of a minute); over its window it is exact. When no
 * admission used the stale reading since the last tick, the ticks stop and the next reading starts
 * them again.
 *
 * <p>Guarded by the governor's lock, except {@link #latestOpaque}, which the lane reads without
 * it. The tick is the timer's task and takes the lock through {@link Governor#holding}; a class of
 * its own rather than a lambda: the agent builds the governor as the application starts
 * (docs/startup-figures.md).
 */
final class TickingClock implements Runnable, Supplier<Void> {

    /** How stale the fast path's time may be. */
    static final long TICK_NANOS = 100_000_000L;

    private static final VarHandle LATEST;

    static {
        try {
            LATEST = MethodHandles.lookup().findVarHandle(TickingClock.class, "latest", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Governor governor;
    private final Clock clock;
    private final Timer timer;

    /** The latest reading; the lane reads it without the lock ({@link #LATEST}). */
    private long latest;
    /** Whether the timer keeps {@link #latest} fresh. */
    private boolean ticking;
    /** Whether the fast path used the stale reading since the last tick. */
    private boolean staleReadsSinceTick;

    TickingClock(Governor governor, Clock clock, Timer timer, long nowNanos) {
        this.governor = governor;
        this.clock = clock;
        this.timer = timer;
        this.latest = nowNanos;
    }

    /** Reads the clock, keeping the latest reading, and starts the ticks unless the governor closed. Lock held. */
    long read() {
        long t = clock.nanoTime();
        if (t - latest > 0) {
            latest = t;
        }
        if (!ticking && !governor.closed) {
            ticking = true;
            timer.schedule(this, TICK_NANOS);
        }
        return latest;
    }

    /** The latest reading, without reading the clock. Lock held. */
    long latest() {
        return latest;
    }

    /** The latest reading, for the lane, without the lock. */
    long latestOpaque() {
        return (long) LATEST.getOpaque(this);
    }

    /** Whether the timer keeps the latest reading fresh, so the fast path may admit on it. Lock held. */
    boolean isTicking() {
        return ticking;
    }

    /** The fast path admitted on the latest reading without reading the clock: the ticks go on. Lock held. */
    void usedStale() {
        staleReadsSinceTick = true;
    }

    /** The governor closes at this reading: the latest is at least it. Lock held. */
    void closing(long nowNanos) {
        latest = Math.max(latest, nowNanos);
    }

    /** The timer's task: the tick. */
    @Override
    public void run() {
        governor.holding(this);
    }

    /** Under the lock: refreshes the reading, and ticks again only if the fast path used it meanwhile. */
    @Override
    public Void get() {
        latest = Math.max(latest, clock.nanoTime());
        if (staleReadsSinceTick && !governor.closed) {
            staleReadsSinceTick = false;
            timer.schedule(this, TICK_NANOS);
        } else {
            ticking = false; // idle: the next admission reads the clock itself
        }
        return null;
    }
}
