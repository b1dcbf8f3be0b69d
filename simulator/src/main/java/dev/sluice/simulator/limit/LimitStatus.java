package dev.sluice.simulator.limit;

import dev.sluice.simulator.Limit;
import java.time.Duration;
import java.time.Instant;

/**
 * The state of one limit for one scope at one instant, as a provider would report it in headers.
 *
 * @param limit the limit
 * @param remaining whole units left
 * @param untilFull time until fully replenished (token bucket) or until the window ends
 * @param resetAt the instant of {@code untilFull}
 */
public record LimitStatus(Limit limit, long remaining, Duration untilFull, Instant resetAt) {

    /** Units in use: what a provider reports as "Used" in its messages. */
    public long used() {
        return Math.max(0, limit.effectiveBurst() - remaining);
    }
}
