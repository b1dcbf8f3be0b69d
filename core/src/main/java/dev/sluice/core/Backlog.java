package dev.sluice.core;

/**
 * When work queued without the lock (lane admissions to register, settlements to apply) must be
 * done by the thread that queued it. Admissions through the lane never take the lock, so without
 * this nobody might; and threads queueing faster than one lock holder works through the queue
 * would grow it without end (seen with two threads admitting and settling on one bucket: millions
 * of permits waiting, and the heap with them).
 */
final class Backlog {

    /** Every this many queued, the queueing thread applies the queue if the lock is free. */
    static final int TRY_EVERY = 256;

    /** From this many queued, the queueing thread waits for the lock and applies the queue. */
    static final int WAIT_FROM = 4_096;

    private Backlog() {}

    static boolean shouldTry(int depth) {
        return depth % TRY_EVERY == 0;
    }

    static boolean mustWait(int depth) {
        return depth >= WAIT_FROM;
    }
}
