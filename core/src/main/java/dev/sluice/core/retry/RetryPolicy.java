package dev.sluice.core.retry;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How many attempts a logical call may make and how long to wait between them. A provider's wait
 * hint is a lower bound with a bounded jitter on top; without one, exponential backoff with full
 * jitter. Immutable.
 */
public final class RetryPolicy {

    private final int maxAttempts;
    private final long baseBackoffNanos;
    private final long maxBackoffNanos;
    private final double hintJitter;
    private final long maxHintWaitNanos;

    public RetryPolicy(
            int maxAttempts, Duration baseBackoff, Duration maxBackoff, double hintJitter, Duration maxHintWait) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1");
        }
        this.maxAttempts = maxAttempts;
        this.baseBackoffNanos = baseBackoff.toNanos();
        this.maxBackoffNanos = Math.max(baseBackoffNanos, maxBackoff.toNanos());
        this.hintJitter = hintJitter;
        this.maxHintWaitNanos = maxHintWait.toNanos();
    }

    /** The SDKs' own defaults: 3 attempts, 0.5 s doubling up to 8 s; hints up to a minute. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(3, Duration.ofMillis(500), Duration.ofSeconds(8), 0.2, Duration.ofSeconds(60));
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public long maxHintWaitNanos() {
        return maxHintWaitNanos;
    }

    /**
     * How long to wait before attempt {@code nextAttempt} (2 for the first retry).
     *
     * @param hintNanos the provider's wait hint, or a negative value when it gave none
     */
    public long delayNanos(int nextAttempt, long hintNanos) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (hintNanos >= 0) {
            return hintNanos + (long) (hintNanos * hintJitter * random.nextDouble());
        }
        int exponent = Math.min(30, Math.max(0, nextAttempt - 2));
        long ceiling = Math.min(maxBackoffNanos, baseBackoffNanos << exponent);
        return (long) (ceiling * random.nextDouble());
    }

    /** Whether a wait hint is too long to wait for inside a call (a day-long quota, say). */
    public boolean tooLongToWait(long hintNanos) {
        return hintNanos > maxHintWaitNanos;
    }
}
