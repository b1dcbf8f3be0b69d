package dev.sluice.core.quota;

import dev.sluice.config.Dimension;
import dev.sluice.config.RampAction;
import dev.sluice.config.RampConfig;
import java.time.Duration;

/**
 * How fast the rate of calls admitted to one provider may grow: the ramp behind a provider's
 * {@code ramp} config. It keeps a ceiling, in calls a second, and sets it as the rate of its own
 * requests limit on the provider's path (a token bucket of a tenth of a second's burst), so calls over it
 * wait in the queue like calls over any limit.
 *
 * <p>A growth ramp lets the ceiling grow by {@code growth} per {@code interval} while calls press
 * on it, and otherwise moves it, at the same pace, towards a little above the rate of the last
 * interval (never under {@code floor}): a steady service is never slowed, and a load that jumps tenfold reaches the provider
 * as x1.5, x2.25... per interval. A schedule ramp sets the ceiling to a share of the
 * provider's requests limit rising linearly from {@code startShare} to 100 % over {@code over},
 * counting only time with calls. While a health threshold is crossed over the last interval (the
 * share of the provider's answers that are 429s, the 95th percentile of answer times, or of queue
 * waits the ramp did not cause) the ramp holds (no growth) or steps back (one interval's growth at
 * once, again after each interval still crossed). Mutated under the governor's lock by its timer;
 * thresholds may be tuned from any thread.
 */
public final class Ramp {

    /** Where a ramp stands. */
    public enum State {
        /** A built-in ramp's first interval: it sees the rate it will pace growth from, and paces nothing. */
        WATCHING("watching"),
        /** Following the recent rate, above it by the growth factor: nothing presses on it. */
        STEADY("steady"),
        /** Calls press on the ceiling: it grows by the factor per interval (or follows its schedule). */
        RAMPING("ramping"),
        /** A health threshold is crossed: the ceiling does not grow. */
        HOLDING("holding"),
        /** A health threshold is crossed: the ceiling stepped back. */
        STEPPING_BACK("stepping_back"),
        /** A schedule that reached 100 %. */
        DONE("done");

        private final String wireName;

        State(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    private final String provider;
    private final Limit limit;
    private final RampHealth health;
    private final long intervalNanos;
    private final Double startShare;
    private final long overNanos;
    /** Calls a second of the provider's requests limit: what a schedule takes a share of. */
    private final double fullRate;

    private volatile double growth;
    private volatile double floor;
    private volatile double rejectedShare;
    /** 0: not watched. */
    private volatile long queueWaitP95Nanos;
    /** 0: not watched. */
    private volatile long latencyP95Nanos;

    private volatile RampAction onTrip;

    private volatile double ceiling;
    private volatile State state = State.STEADY;
    private volatile String trippedBy = "";
    private volatile RampHealth.Window last;
    /** Whether calls pressed on the ceiling at the last tick: their waits are the ramp's own. */
    private volatile boolean binding;

    /**
     * A built-in ramp leaves a service's first interval alone (a cold start is the slow start's and
     * the limits' to pace) and paces growth from the rate it then saw: until then, the end of that
     * first interval (monotonic nanos); 0 once it is over, or for a declared ramp.
     */
    private long warmUntilNanos;

    private long lastPressedNanos;

    private long trips;
    private long lastTickNanos;
    private long lastStepBackNanos;
    /** Schedules: time with calls since the start, less what steps back took away. */
    private long progressNanos;

    private Ramp(String provider, RampConfig config, double fullRate, Limit limit, long nowNanos) {
        this.provider = provider;
        this.limit = limit;
        this.intervalNanos = config.interval().toNanos();
        this.health = new RampHealth(intervalNanos);
        this.startShare = config.startShare();
        this.overNanos = config.over() == null ? 0 : config.over().toNanos();
        this.fullRate = fullRate;
        this.growth = config.growth();
        this.floor = config.floor();
        this.rejectedShare = config.rejectedShare();
        this.queueWaitP95Nanos =
                config.queueWaitP95() == null ? 0 : config.queueWaitP95().toNanos();
        this.latencyP95Nanos =
                config.latencyP95() == null ? 0 : config.latencyP95().toNanos();
        this.onTrip = config.onTrip();
        this.ceiling = initialCeiling(config, fullRate);
        this.lastTickNanos = nowNanos;
        this.warmUntilNanos = config.isBuiltIn() ? nowNanos + intervalNanos : 0;
        this.state = config.isBuiltIn() ? State.WATCHING : State.STEADY;
        this.lastStepBackNanos = nowNanos - intervalNanos; // the first trip steps back at once
        this.lastPressedNanos = nowNanos - intervalNanos;
    }

    /** The id of the requests limit a provider's ramp sets: {@code <provider>.ramp}. */
    public static String limitId(String provider) {
        return provider + ".ramp";
    }

    /**
     * The spec of the requests limit a ramp sets, as it starts: the floor (or the schedule's start
     * share) a second, with a burst of a tenth of a second.
     */
    public static LimitSpec limitSpec(String provider, RampConfig config, double fullRate) {
        long perMinute = perMinute(initialCeiling(config, fullRate));
        long burst = burstOf(initialCeiling(config, fullRate));
        return LimitSpec.builder(limitId(provider), Dimension.REQUESTS, perMinute)
                .window(Duration.ofMinutes(1))
                .provider(provider)
                .burst(burst >= perMinute ? 0 : burst)
                .source(LimitSpec.Source.RAMP)
                .build();
    }

    /** The ramp of a provider, setting {@code limit} (built from {@link #limitSpec}). */
    public static Ramp of(String provider, RampConfig config, double fullRate, Limit limit, long nowNanos) {
        return new Ramp(provider, config, fullRate, limit, nowNanos);
    }

    /**
     * The share of the ceiling calls go at, over the last quarter interval, from which they press on
     * it: above what a steady service leaves under its headroom (the square root of the factor:
     * 82 % at x1.5).
     */
    static final double PRESSED_SHARE = 0.85;

    /** The ceiling of a ramp that does not pace yet: a built-in one in its first interval. */
    private static final double UNPACED = 1e9;

    private static double initialCeiling(RampConfig config, double fullRate) {
        if (config.isBuiltIn()) {
            return UNPACED;
        }
        return config.scheduled() ? Math.max(config.startShare() * fullRate, 1.0 / 60) : config.floor();
    }

    private static long perMinute(double perSecond) {
        return Math.max(1, Math.round(perSecond * 60));
    }

    /** A tenth of a second of the rate at once: the ramp shapes the rate, it hands out no burst of its own. */
    private static long burstOf(double perSecond) {
        return Math.max(1, (long) Math.ceil(perSecond / 10));
    }

    // ------------------------------------------------------------------ what calls tell it

    /** A call to the provider was admitted after waiting {@code waitedNanos}. Any thread. */
    public void admitted(long waitedNanos, long nowNanos) {
        health.admitted(waitedNanos, binding, nowNanos);
    }

    /** The provider answered an attempt with {@code status} after {@code latencyNanos}. Any thread. */
    public void answered(int status, long latencyNanos, long nowNanos) {
        health.answered(status, latencyNanos, nowNanos);
    }

    // ------------------------------------------------------------------ the governor's timer

    /**
     * What calls did over the last interval at {@code nowNanos}, for the next {@link #tick}. Read
     * before the governor's lock is taken: it sorts the latest samples for their percentiles, work
     * the calls waiting on that lock need not wait for. Any thread.
     */
    public RampHealth.Window observe(long nowNanos) {
        return health.over(nowNanos);
    }

    /**
     * Moves the ceiling for the time since the last tick, from {@code w} (what {@link #observe}
     * saw just before), and sets it on its limit. Lock held.
     */
    public void tick(RampHealth.Window w, long nowNanos, long nowMillis) {
        long dt = nowNanos - lastTickNanos;
        if (dt <= 0) {
            return;
        }
        lastTickNanos = nowNanos;
        last = w;
        Bucket bucket = limit.buckets().iterator().next();
        // calls press on the ceiling when one waits for the ramp's room, or they go at its pace
        boolean pressed = bucket.claimant() != null || w.latelyPerSecond >= PRESSED_SHARE * ceiling;
        if (pressed) {
            lastPressedNanos = nowNanos;
        }
        // a moment without pressure between two with it does not make the waits others' doing
        binding = pressed || nowNanos - lastPressedNanos < intervalNanos / 4;
        if (warmUntilNanos != 0) {
            if (nowNanos - warmUntilNanos < 0) {
                return; // a built-in ramp's first interval: the rate it will pace from is being seen
            }
            warmUntilNanos = 0;
            ceiling = Math.max(floor, Math.sqrt(growth) * w.admittedPerSecond);
        }
        String crossed = crossed(w);
        if (!crossed.isEmpty() && trippedBy.isEmpty()) {
            trips++;
        }
        trippedBy = crossed;
        double next =
                startShare != null ? scheduled(w, crossed, dt, nowNanos) : grown(w, crossed, pressed, dt, nowNanos);
        ceiling = next;
        apply(nowNanos, nowMillis);
    }

    /**
     * The admitted rate over an interval may be at most {@code growth} times that of the interval
     * before. While calls press on the ceiling it grows by {@code growth} per interval, smoothly;
     * otherwise it follows the recent rate with the headroom of half an interval's growth (the
     * square root of the factor), never under the floor. That headroom is what a steady service's
     * ups and downs use, and what a jump starts from: with a whole interval's growth as headroom,
     * the first interval of a jump would reach nearly the square of the factor (1.85 times at x1.5),
     * with half of it, about the factor.
     */
    private double grown(RampHealth.Window w, String crossed, boolean pressed, long dt, long nowNanos) {
        double c = ceiling;
        double step = Math.pow(growth, (double) dt / intervalNanos);
        if (!crossed.isEmpty()) {
            if (onTrip == RampAction.STEP_BACK && nowNanos - lastStepBackNanos >= intervalNanos) {
                lastStepBackNanos = nowNanos;
                state = State.STEPPING_BACK;
                return Math.max(floor, Math.min(c, Math.max(w.admittedPerSecond, floor)) / growth);
            }
            state = onTrip == RampAction.STEP_BACK ? State.STEPPING_BACK : State.HOLDING;
            return Math.max(floor, c);
        }
        if (pressed) {
            state = State.RAMPING;
            return Math.max(floor, c * step);
        }
        state = State.STEADY;
        // towards the target at the ramp's pace either way: a moment without pressure between
        // two with it must not take back what the ramp grew
        double target = Math.max(floor, Math.sqrt(growth) * w.admittedPerSecond);
        return target > c ? Math.min(target, c * step) : Math.max(target, c / step);
    }

    private double scheduled(RampHealth.Window w, String crossed, long dt, long nowNanos) {
        if (!crossed.isEmpty()) {
            if (onTrip == RampAction.STEP_BACK && nowNanos - lastStepBackNanos >= intervalNanos) {
                lastStepBackNanos = nowNanos;
                progressNanos = Math.max(0, progressNanos - intervalNanos);
            }
            state = onTrip == RampAction.STEP_BACK ? State.STEPPING_BACK : State.HOLDING;
        } else if (w.admittedPerSecond > 0) {
            progressNanos = Math.min(overNanos, progressNanos + dt); // the schedule runs while calls come
        }
        double share = share();
        if (crossed.isEmpty()) {
            state = share >= 1 ? State.DONE : State.RAMPING;
        }
        return Math.max(share * fullRate, 1.0 / 60);
    }

    /** Which threshold the last interval crossed (the first), or empty. */
    private String crossed(RampHealth.Window w) {
        if (w.refusedShare() > rejectedShare) {
            return "rejectedShare";
        }
        long latencyLimit = latencyP95Nanos;
        if (latencyLimit > 0 && w.latencyP95Nanos > latencyLimit) {
            return "latencyP95";
        }
        long waitLimit = queueWaitP95Nanos;
        if (waitLimit > 0 && w.waitP95Nanos > waitLimit) {
            return "queueWaitP95";
        }
        return "";
    }

    /** Sets the ceiling on the limit: its rate a minute, one second of it at once. Lock held. */
    private void apply(long nowNanos, long nowMillis) {
        long perMinute = perMinute(ceiling);
        long burst = burstOf(ceiling);
        long wanted = burst >= perMinute ? 0 : burst;
        if (limit.capacity() != perMinute) {
            limit.setCapacity(perMinute, nowNanos, nowMillis);
        }
        if (limit.burstSetting() != wanted) {
            limit.setBurst(wanted, nowNanos, nowMillis);
        }
    }

    // ------------------------------------------------------------------ for operators

    public String provider() {
        return provider;
    }

    public State state() {
        return state;
    }

    /** The most calls a second the ramp admits now; -1 while a built-in ramp watches its first interval. */
    public double ceilingPerSecond() {
        return state == State.WATCHING ? -1 : ceiling;
    }

    /** Calls a second admitted over the last interval. */
    public double recentPerSecond() {
        RampHealth.Window w = last;
        return w == null ? 0 : w.admittedPerSecond;
    }

    /** Schedules: the share of the provider's requests limit reached; -1 for growth ramps. */
    public double share() {
        if (startShare == null) {
            return -1;
        }
        return overNanos <= 0 ? 1 : Math.min(1, startShare + (1 - startShare) * progressNanos / overNanos);
    }

    /** The threshold the last interval crossed (rejectedShare, latencyP95, queueWaitP95), or empty. */
    public String trippedBy() {
        return trippedBy;
    }

    /** Times a threshold was crossed after none was. */
    public long trips() {
        return trips;
    }

    public Duration interval() {
        return Duration.ofNanos(intervalNanos);
    }

    /** The share of the provider's answers that were 429s over the last interval. */
    public double observedRejectedShare() {
        RampHealth.Window w = last;
        return w == null ? 0 : w.refusedShare();
    }

    /** The 95th percentile of answer times over the last interval, ms; -1 with too few. */
    public double observedLatencyP95Millis() {
        RampHealth.Window w = last;
        return w == null || w.latencyP95Nanos < 0 ? -1 : w.latencyP95Nanos / 1e6;
    }

    /** The 95th percentile of queue waits the ramp did not cause over the last interval, ms; -1 with too few. */
    public double observedQueueWaitP95Millis() {
        RampHealth.Window w = last;
        return w == null || w.waitP95Nanos < 0 ? -1 : w.waitP95Nanos / 1e6;
    }

    public double growth() {
        return growth;
    }

    /** Live tuning; must be > 1. */
    public void setGrowth(double v) {
        if (!(v > 1) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("growth must be > 1, was " + v);
        }
        growth = v;
    }

    public double floor() {
        return floor;
    }

    /** Live tuning; calls a second, must be > 0. */
    public void setFloor(double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("floor must be > 0 (calls a second), was " + v);
        }
        floor = v;
    }

    public double rejectedShareThreshold() {
        return rejectedShare;
    }

    /** Live tuning; in (0, 1]. */
    public void setRejectedShareThreshold(double v) {
        if (!(v > 0 && v <= 1)) {
            throw new IllegalArgumentException("rejectedShare must be between 0 (excluded) and 1, was " + v);
        }
        rejectedShare = v;
    }

    /** 0: not watched. */
    public long queueWaitP95ThresholdMillis() {
        return queueWaitP95Nanos / 1_000_000;
    }

    /** Live tuning; 0 stops watching, else > 0. */
    public void setQueueWaitP95ThresholdMillis(long v) {
        queueWaitP95Nanos = thresholdNanos("queueWaitP95", v);
    }

    /** 0: not watched. */
    public long latencyP95ThresholdMillis() {
        return latencyP95Nanos / 1_000_000;
    }

    /** Live tuning; 0 stops watching, else > 0. */
    public void setLatencyP95ThresholdMillis(long v) {
        latencyP95Nanos = thresholdNanos("latencyP95", v);
    }

    /** The most milliseconds a threshold in nanoseconds holds. */
    private static final long MAX_THRESHOLD_MILLIS = Long.MAX_VALUE / 1_000_000;

    /** {@code v} ms in nanoseconds; a value whose nanoseconds would overflow is refused, not wrapped. */
    private static long thresholdNanos(String name, long v) {
        if (v < 0 || v > MAX_THRESHOLD_MILLIS) {
            throw new IllegalArgumentException(
                    name + " must be between 0 (not watched) and " + MAX_THRESHOLD_MILLIS + " ms, was " + v);
        }
        return v * 1_000_000;
    }

    public RampAction onTrip() {
        return onTrip;
    }

    public void setOnTrip(RampAction v) {
        if (v == null) {
            throw new IllegalArgumentException("onTrip must be hold or step_back");
        }
        onTrip = v;
    }

    @Override
    public String toString() {
        return "Ramp{" + provider + " " + state.wireName() + " at " + String.format("%.2f", ceiling) + "/s}";
    }
}
