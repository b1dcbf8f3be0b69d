package dev.sluice.core;

import dev.sluice.core.schedule.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Releases permits whose lease expired: a stream nobody closed, a response nobody read. What they
 * reserved is kept as used (Sluice cannot know better) and their slots come back. One chain of
 * runs on the governor's timer, due when the oldest lease on the ledger ends; while the lock-free
 * lane is in use, also every {@link #LANE_SWEEPS_PER_LEASE}th of a lease, since a lane permit
 * reaches the lease list only when a lock holder registers it, and on an idle governor nobody
 * else does.
 *
 * <p>Everything here but a run's start is guarded by the governor's lock; a run takes it through
 * {@link Governor#holding} and expires the permits after releasing it.
 */
final class LeaseReaper {

    /**
     * How many times per lease the reaper registers the lane's permits while the lane is in use. A
     * lane permit's lease starts when it is registered, and on an idle governor only the reaper
     * registers it: an abandoned one is reaped at most a lease and this fraction of one after its
     * admission.
     */
    static final int LANE_SWEEPS_PER_LEASE = 8;

    private final Governor governor;
    private final Timer timer;
    private final PermitLedger ledger;
    private final GovernorStats stats;
    private final long leaseTimeoutNanos;

    /** The scheduled run, or null when none is (guarded by lock). */
    private Run scheduled;
    /** Whether some bucket has lent to the lane: runs then keep registering lane permits (guarded by lock). */
    private boolean laneInUse;

    LeaseReaper(Governor governor, Timer timer, PermitLedger ledger, GovernorStats stats, long leaseTimeoutNanos) {
        this.governor = governor;
        this.timer = timer;
        this.ledger = ledger;
        this.stats = stats;
        this.leaseTimeoutNanos = leaseTimeoutNanos;
    }

    /**
     * One scheduled run. Each schedule makes its own, so a run that fired while its schedule was
     * being replaced (waiting for the lock) finds it is not the current one and ends, instead of
     * starting a second chain of reaps beside the new one. A class of its own, not a lambda: the
     * agent builds the governor as the application starts (docs/startup-figures.md).
     */
    private final class Run implements Runnable {
        /** Its place in the timer, to cancel it (guarded by lock). */
        Timer.Cancellable task;

        @Override
        public void run() {
            reap(this);
        }
    }

    /** A permit joined the ledger: a run is due within a lease, unless one is already. Lock held. */
    void withinALease() {
        if (scheduled == null && !governor.closed) {
            schedule(leaseTimeoutNanos);
        }
    }

    /** A bucket lent to the lane: from now on runs also register lane permits, so the next comes sooner. Lock held. */
    void laneInUse() {
        if (!laneInUse) {
            laneInUse = true;
            if (!governor.closed) {
                schedule(laneSweepNanos());
            }
        }
    }

    /** The governor closes: no run any more. Lock held. */
    void cancel() {
        if (scheduled != null) {
            scheduled.task.cancel();
            scheduled = null;
        }
    }

    private void reap(Run run) {
        List<Permit> expired = new ArrayList<>();
        governor.holding(new Supplier<Void>() {
            @Override
            public Void get() {
                if (run != scheduled) {
                    return null; // replaced while it waited for the lock: the current run reaps
                }
                scheduled = null;
                long now = governor.now();
                governor.drainLedger(now);
                Permit p = ledger.oldest();
                while (p != null && now - p.leaseExpiryNanos >= 0) {
                    Permit next = p.leaseNext;
                    ledger.remove(p);
                    if (!p.isDone()) {
                        expired.add(p);
                    }
                    p = next;
                }
                Permit oldest = ledger.oldest();
                long next = oldest == null ? Long.MAX_VALUE : Math.max(1, oldest.leaseExpiryNanos - now);
                if (laneInUse) {
                    // lane permits reach the lease list when a lock holder registers them, and their
                    // lease starts then: on an idle governor nobody else does
                    next = Math.min(next, laneSweepNanos());
                }
                if (next != Long.MAX_VALUE && !governor.closed) {
                    schedule(next);
                }
                return null;
            }
        });
        for (Permit p : expired) {
            stats.onLeaseExpired();
            p.expireLease();
        }
    }

    /**
     * Schedules the next run in place of any scheduled one. Lock held. The new run is in the timer
     * before the old one is cancelled: if scheduling failed, the old one stays.
     */
    private void schedule(long delayNanos) {
        Run run = new Run();
        run.task = timer.schedule(run, delayNanos);
        if (scheduled != null) {
            scheduled.task.cancel();
        }
        scheduled = run;
    }

    /** How often runs register the lane's permits while the lane is in use. */
    private long laneSweepNanos() {
        return Math.max(1, leaseTimeoutNanos / LANE_SWEEPS_PER_LEASE);
    }
}
