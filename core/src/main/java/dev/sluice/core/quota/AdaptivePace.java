package dev.sluice.core.quota;

/**
 * A pace for a provider scope whose answers carry no rate-limit headers (Gemini, Vertex AI, a
 * fixed-window gateway): its 429s alone tell Sluice it sends too fast, so it adapts the way TCP
 * does. A refusal cuts the pace to {@link #DECREASE} of the rate Sluice was actually sending at (or
 * of the pace, if lower), at most once a second, since the calls already in flight meet the same
 * limit; every second with answers and no refusal adds back a share of the cut, so the pace climbs
 * back to where it was refused in about {@value #CLIMB_SECONDS} s; past that point it probes upwards
 * by {@link #PROBE} a second while the provider keeps accepting (the shape of TCP CUBIC: a careful
 * climb back to the last known limit, a quick search beyond it, which also corrects a first
 * estimate made on too few answers). A pace above what Sluice sends never binds, so as the evidence
 * fades the room comes back by itself.
 *
 * <p>The pace is a learned requests-per-minute bucket of the scope, so it is queued on, shown and
 * saved like any other. Guarded by the governor's lock.
 */
final class AdaptivePace {

    static final String BUDGET_NAME = "requests-paced-by-429s";
    static final long WINDOW_MILLIS = 60_000L;
    /** The largest burst, in seconds of the pace: a pace, not a bucket to empty at once. */
    private static final long BURST_SECONDS = 2;

    private static final long SECOND = 1_000_000_000L;
    /** What a refusal leaves of the pace. */
    static final double DECREASE = 0.7;
    /** Seconds of accepted answers to climb back from a cut to where the refusal came. */
    static final long CLIMB_SECONDS = 15;
    /** How much a second of accepted answers adds past the pace of the last refusal. */
    static final double PROBE = 0.25;
    /** The pace never drops below this many calls a minute. */
    private static final long FLOOR = 6;
    /** Far above any provider's request limit; the pace stops climbing there. */
    private static final long CEILING = 1_000_000;

    private final Bucket bucket;
    private long lastDecreaseNanos;
    private long lastIncreaseNanos;
    /** Calls a minute added per second without refusal, up to {@link #refusedAt}. */
    private double stepPerSecond;
    /** The rate (calls a minute) Sluice was sending at when the last refusal came. */
    private double refusedAt;

    private AdaptivePace(Bucket bucket, long nowNanos) {
        this.bucket = bucket;
        this.refusedAt = bucket.limit().capacity() / DECREASE;
        this.lastDecreaseNanos = nowNanos;
        this.lastIncreaseNanos = nowNanos;
        this.stepPerSecond = stepAfterCut(bucket.limit().capacity());
    }

    /** The pace after the first refusal, from the rate Sluice sent at. */
    static long firstPace(double sentPerMinute) {
        return clamp(sentPerMinute * DECREASE);
    }

    private static double stepAfterCut(long pace) {
        return Math.max(0.5, pace * (1 / DECREASE - 1) / CLIMB_SECONDS);
    }

    static AdaptivePace over(Bucket bucket, long nowNanos) {
        return new AdaptivePace(bucket, nowNanos);
    }

    Bucket bucket() {
        return bucket;
    }

    static long burstOf(long pace) {
        return Math.max(1, pace * BURST_SECONDS / 60);
    }

    /** A refusal: cut the pace, unless it was already cut within the last second. */
    void refused(double sentPerMinute, long nowNanos, long nowMillis) {
        if (nowNanos - lastDecreaseNanos < SECOND) {
            return;
        }
        long pace = bucket.limit().capacity();
        refusedAt = Math.min(pace, sentPerMinute);
        long cut = clamp(refusedAt * DECREASE);
        set(cut, nowNanos, nowMillis);
        lastDecreaseNanos = nowNanos;
        lastIncreaseNanos = nowNanos;
        stepPerSecond = stepAfterCut(cut);
    }

    /** Whether an accepted answer at {@code nowNanos} should raise the pace (a second went by). Any thread. */
    boolean increaseDue(long nowNanos) {
        return nowNanos - lastIncreaseNanos >= SECOND;
    }

    /** An accepted answer: add what the seconds since the last rise earned. */
    void accepted(long nowNanos, long nowMillis) {
        long elapsed = nowNanos - lastIncreaseNanos;
        if (elapsed < SECOND) {
            return;
        }
        // at most a few seconds' worth: seconds with no answer at all earned nothing
        double seconds = Math.min(5.0, (double) elapsed / SECOND);
        long pace = bucket.limit().capacity();
        double next = pace < refusedAt ? pace + stepPerSecond * seconds : pace * Math.pow(1 + PROBE, seconds);
        set(clamp(Math.max(next, pace + 1)), nowNanos, nowMillis);
        lastIncreaseNanos = nowNanos;
    }

    private void set(long pace, long nowNanos, long nowMillis) {
        Limit l = bucket.limit();
        if (pace != l.capacity()) {
            l.setCapacity(pace, nowNanos, nowMillis);
        }
        long burst = burstOf(pace);
        l.setBurst(burst >= pace ? 0 : burst, nowNanos, nowMillis);
    }

    private static long clamp(double pace) {
        return (long) Math.max(FLOOR, Math.min(CEILING, Math.round(pace)));
    }
}
