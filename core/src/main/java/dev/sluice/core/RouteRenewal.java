package dev.sluice.core;

import dev.sluice.core.schedule.Timer;
import java.util.function.Supplier;

/**
 * Keeps the recent route resolved while its tenant still calls ({@link Routes#renewRecent}): after
 * a resolution a renewal is planned on the governor's timer, and each renewal plans the next while
 * the route is in use. A class of its own rather than a lambda: the agent builds the governor as
 * the application starts (docs/startup-figures.md). Guarded by the governor's lock; a renewal takes
 * it through {@link Governor#holding}.
 */
final class RouteRenewal implements Runnable {

    private final Governor governor;
    private final Routes routes;
    private final Timer timer;
    private final Clock clock;

    /** The recent route's next renewal, or null when none is planned (guarded by lock). */
    private Timer.Cancellable planned;

    RouteRenewal(Governor governor, Routes routes, Timer timer, Clock clock) {
        this.governor = governor;
        this.routes = routes;
        this.timer = timer;
        this.clock = clock;
    }

    /** A route was resolved and became the recent one: its renewal is planned, unless one is. Lock held. */
    void resolved() {
        if (planned == null && !governor.closed) {
            planned = timer.schedule(this, Routes.RENEWAL_NANOS);
        }
    }

    /**
     * Renews the recent route and plans the next renewal while it is in use. Reads the clock
     * itself: {@link Governor#now} would start the clock's tick, which an idle governor does not need.
     */
    @Override
    public void run() {
        governor.holding(new Supplier<Void>() {
            @Override
            public Void get() {
                planned = null;
                if (governor.closed) {
                    return null;
                }
                long next = routes.renewRecent(clock.nanoTime());
                if (next > 0) {
                    planned = timer.schedule(RouteRenewal.this, next);
                }
                return null;
            }
        });
    }

    /** Whether a renewal is planned. Lock held. */
    boolean isPlanned() {
        return planned != null;
    }

    /** The governor closes: no renewal any more. Lock held. */
    void cancel() {
        if (planned != null) {
            planned.cancel();
            planned = null;
        }
    }
}
