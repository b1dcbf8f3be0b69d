package dev.sluice.simulator.limit;

import java.time.Duration;

/**
 * The state behind one limit for one scope value. Not thread-safe: {@link QuotaBook} calls it under
 * its lock so that a request is charged on all its meters or on none.
 */
interface Meter {
    /** Whether {@code amount} fits now. */
    boolean hasRoom(long amount, long nowNanos);

    /** Charges {@code amount}; callers checked {@link #hasRoom} first. */
    void take(long amount, long nowNanos);

    /** Charges even without room (providers count failed requests too), never below empty. */
    void takeAtMostAvailable(long amount, long nowNanos);

    /** Gives back what a request did not use, or its concurrency slot. */
    void giveBack(long amount, long nowNanos);

    /** Whole units left now. */
    long remaining(long nowNanos);

    /** Time until {@code amount} fits, or null when no time can be named (concurrency). */
    Duration untilRoomFor(long amount, long nowNanos);

    /** Time until the meter is back to its initial state (full bucket, new window). */
    Duration untilFull(long nowNanos);

    /** Largest amount that could ever fit at once. */
    long ceiling();
}
