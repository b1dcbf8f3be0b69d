package dev.sluice.core.schedule;

import dev.sluice.config.OverloadAction;
import java.time.Duration;
import java.util.Objects;

/**
 * A traffic class at run time: its priority, how long its calls may wait, how many may wait, and
 * what happens to the rest. Max wait and depth are tunable live (JMX).
 */
public final class TrafficClass {

    private final String name;
    private final int priority;
    private volatile long maxWaitNanos;
    private volatile int maxQueueDepth;
    private final OverloadAction overloadAction;

    public TrafficClass(String name, int priority, Duration maxWait, int maxQueueDepth, OverloadAction overloadAction) {
        this.name = Objects.requireNonNull(name, "name");
        this.priority = priority;
        setMaxWait(maxWait);
        setMaxQueueDepth(maxQueueDepth);
        this.overloadAction = Objects.requireNonNull(overloadAction, "overloadAction");
    }

    /** The built-in {@code default} class: backpressure up to a minute (never past the caller's own timeout). */
    public static TrafficClass defaultClass() {
        return new TrafficClass("default", 50, Duration.ofSeconds(60), 10_000, OverloadAction.REJECT);
    }

    /** The built-in {@code interactive} class: a person is waiting, 300 ms at most. */
    public static TrafficClass interactive() {
        return new TrafficClass("interactive", 100, Duration.ofMillis(300), 1_000, OverloadAction.REJECT);
    }

    /** The built-in {@code batch} class: may wait twenty minutes. */
    public static TrafficClass batch() {
        return new TrafficClass("batch", 10, Duration.ofMinutes(20), 100_000, OverloadAction.REJECT);
    }

    public String name() {
        return name;
    }

    /** Higher goes first under strict priority; the relative weight under weighted priority. */
    public int priority() {
        return priority;
    }

    public long maxWaitNanos() {
        return maxWaitNanos;
    }

    public int maxQueueDepth() {
        return maxQueueDepth;
    }

    public OverloadAction overloadAction() {
        return overloadAction;
    }

    public void setMaxWait(Duration maxWait) {
        if (maxWait == null || maxWait.isNegative() || maxWait.isZero()) {
            throw new IllegalArgumentException("maxWait must be > 0, was " + maxWait);
        }
        this.maxWaitNanos = maxWait.toNanos();
    }

    public void setMaxQueueDepth(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("maxQueueDepth must be >= 1, was " + depth);
        }
        this.maxQueueDepth = depth;
    }

    @Override
    public String toString() {
        return name + "(priority " + priority + ", max wait " + Duration.ofNanos(maxWaitNanos) + ", depth "
                + maxQueueDepth + ")";
    }
}
