package dev.sluice.simulator.limit;

import dev.sluice.simulator.Dimension;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The outcome of asking a {@link QuotaBook} to admit a request: admitted (and charged on every
 * limit), or refused by one limit with the time after which the same request would fit.
 */
public final class Admission {
    private final boolean admitted;
    private final LimitStatus refusedBy;
    private final long requested;
    private final Duration retryAfter;
    private final boolean tooLarge;
    private final List<LimitStatus> statuses;
    private final ScopeKeys keys;
    private final Map<Dimension, Long> charged;

    Admission(
            boolean admitted,
            LimitStatus refusedBy,
            long requested,
            Duration retryAfter,
            boolean tooLarge,
            List<LimitStatus> statuses,
            ScopeKeys keys,
            Map<Dimension, Long> charged) {
        this.admitted = admitted;
        this.refusedBy = refusedBy;
        this.requested = requested;
        this.retryAfter = retryAfter;
        this.tooLarge = tooLarge;
        this.statuses = List.copyOf(statuses);
        this.keys = keys;
        this.charged = Map.copyOf(charged);
    }

    public boolean admitted() {
        return admitted;
    }

    /** The limit that refused, or null when admitted. */
    public LimitStatus refusedBy() {
        return refusedBy;
    }

    /** What the request asked of the refusing limit. */
    public long requested() {
        return requested;
    }

    /**
     * When the same request would fit, or null when no time can be named (concurrency). Null also
     * when {@link #tooLarge()}: waiting never helps.
     */
    public Duration retryAfter() {
        return retryAfter;
    }

    /** The request asks more than the limit can ever hold at once: not admissible. */
    public boolean tooLarge() {
        return tooLarge;
    }

    /** Every limit on the request's path, after the decision (charged if admitted). */
    public List<LimitStatus> statuses() {
        return statuses;
    }

    ScopeKeys keys() {
        return keys;
    }

    /** What was charged per dimension (empty when refused). */
    public Map<Dimension, Long> charged() {
        return charged;
    }
}
