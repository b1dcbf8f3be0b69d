package dev.sluice.core.quota;

/**
 * A pace for a provider scope whose answers carry no rate-limit headers (Gemini, Vertex AI, a
 * fixed-window gateway): its 429s alone tell Sluice it sends too fast, so it adapts the way TCP
 * does. A refusal halves the pace, from the rate Sluice was actually sending at (or the pace, if
 * lower), at most once a second, since the calls already in flight meet the same limit; every
 * second with answers and no refusal adds back a thirtieth of the halved pace, so the pace climbs
 * back to where it was refused in about 30 s, and beyond while the provider keeps accepting. A pace
 * above what Sluice sends never binds, so as the evidence fades the room comes back by itself.
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
    /** The pace never drops below this many calls a minute. */
    private static final long FLOOR = 2;
    /** Far above any provider's request limit; the pace stops climbing there. */
    private static final long CEILING = 1_000_000;

    private final Bucket bucket;
    private long lastDecreaseNanos;
    private long lastIncreaseNanos;
    /** Calls a minute added per second without refusal. */
    private double stepPerSecond;

    private AdaptivePace(Bucket bucket, long nowNanos) {
        this.bucket = bucket;
        this.lastDecreaseNanos = nowNanos;
        this.lastIncreaseNanos = nowNanos;
        this.stepPerSecond = Math.max(0.5, bucket.limit().capacity() / 30.0);
    }

    /** The pace after the first refusal, from the rate Sluice sent at: half of it. */
    static long firstPace(double sentPerMinute) {
        return clamp(sentPerMinute / 2);
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

    /** A refusal: halve, unless the pace was already halved within the last second. */
    void refused(double sentPerMinute, long nowNanos, long nowMillis) {
        if (nowNanos - lastDecreaseNanos < SECOND) {
            return;
        }
        long pace = bucket.limit().capacity();
        long halved = clamp(Math.min(pace, sentPerMinute) / 2);
        set(halved, nowNanos, nowMillis);
        lastDecreaseNanos = nowNanos;
        lastIncreaseNanos = nowNanos;
        stepPerSecond = Math.max(0.5, halved / 30.0);
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
        set(clamp(pace + stepPerSecond * seconds), nowNanos, nowMillis);
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
