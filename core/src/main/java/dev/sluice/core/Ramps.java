package dev.sluice.core;

import dev.sluice.config.RampConfig;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.Ramp;
import dev.sluice.core.quota.RampHealth;
import dev.sluice.core.schedule.Timer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The governor's ramps, one per provider that has one: what calls tell them (admitted, answered),
 * and the timer that moves their ceilings (each tick under the governor's lock, so a higher
 * ceiling lets waiting calls through at once). No ramp, no timer.
 */
final class Ramps {

    /** A ramp as the builder declares it, before its limit exists. */
    static final class Declared {
        final String provider;
        final RampConfig config;
        final double fullRate;

        Declared(String provider, RampConfig config, double fullRate) {
            this.provider = provider;
            this.config = config;
            this.fullRate = fullRate;
        }
    }

    private static final long MIN_TICK_NANOS = 50_000_000L;
    private static final long MAX_TICK_NANOS = 1_000_000_000L;

    private final Governor governor;
    private final Timer timer;
    private final Ramp[] ramps;
    /** What each ramp saw at the current tick; the timer's thread only (one tick at a time). */
    private final RampHealth.Window[] seen;

    private final long tickNanos;

    Ramps(Governor governor, Timer timer, List<Declared> declared, Limit[] limits, long nowNanos) {
        this.governor = governor;
        this.timer = timer;
        List<Ramp> built = new ArrayList<>();
        long tick = MAX_TICK_NANOS;
        for (Declared d : declared) {
            Limit limit = find(limits, Ramp.limitId(d.provider));
            built.add(Ramp.of(d.provider, d.config, d.fullRate, limit, nowNanos));
            tick = Math.min(tick, d.config.interval().toNanos() / 20);
        }
        this.ramps = built.toArray(new Ramp[0]);
        this.seen = new RampHealth.Window[ramps.length];
        this.tickNanos = Math.max(MIN_TICK_NANOS, tick);
        if (ramps.length > 0) {
            timer.schedule(this::tick, tickNanos);
        }
    }

    private static Limit find(Limit[] limits, String id) {
        for (Limit l : limits) {
            if (l.id().equals(id)) {
                return l;
            }
        }
        throw new IllegalStateException("no limit " + id + " for its ramp");
    }

    /** Every ramp, in declaration order. */
    List<Ramp> all() {
        return Collections.unmodifiableList(java.util.Arrays.asList(ramps));
    }

    /** The ramp of this provider, or null. */
    Ramp of(String provider) {
        for (Ramp r : ramps) {
            if (r.provider().equals(provider)) {
                return r;
            }
        }
        return null;
    }

    /** A call to {@code provider} was admitted after waiting {@code waitedNanos}. */
    void admitted(String provider, long waitedNanos, long nowNanos) {
        if (ramps.length == 0) {
            return;
        }
        Ramp r = of(provider);
        if (r != null) {
            r.admitted(waitedNanos, nowNanos);
        }
    }

    /** {@code provider} answered an attempt with {@code status} after {@code latencyNanos}. */
    void answered(String provider, int status, long latencyNanos, long nowNanos) {
        if (ramps.length == 0) {
            return;
        }
        Ramp r = of(provider);
        if (r != null) {
            r.answered(status, latencyNanos, nowNanos);
        }
    }

    private void tick() {
        try {
            // what each ramp saw is read before the lock: percentiles sort samples, and the calls
            // waiting on the lock need not wait for that
            long seenAt = governor.clock().nanoTime();
            for (int i = 0; i < ramps.length; i++) {
                seen[i] = ramps[i].observe(seenAt);
            }
            governor.underLock(nowNanos -> {
                long nowMillis = governor.clock().epochMillis();
                for (int i = 0; i < ramps.length; i++) {
                    ramps[i].tick(seen[i], nowNanos, nowMillis);
                }
                return null;
            });
        } catch (RuntimeException fault) {
            governor.logLater("sluice: a ramp could not move its ceiling; it stays where it was", fault);
        } finally {
            if (!governor.closed) {
                timer.schedule(this::tick, tickNanos);
            }
        }
    }
}
