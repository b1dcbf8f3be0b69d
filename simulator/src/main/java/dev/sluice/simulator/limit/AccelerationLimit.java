package dev.sluice.simulator.limit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;

/**
 * A provider's acceleration limit: it refuses a request when the requests accepted over the last
 * {@code window} would exceed {@code factor} times those of the window before (and {@code
 * floor}, under which growth is never punished). OpenAI answers such a request 429
 * {@code slow_down} ("a sudden increase in your request rate"); Anthropic documents acceleration
 * limits on sharp increases. Counted over every key of the simulator; thread-safe.
 */
public final class AccelerationLimit {

    private final double factor;
    private final long windowNanos;
    private final int floor;
    private final ArrayDeque<Long> accepted = new ArrayDeque<>();

    /**
     * @param factor the most the rate may grow from one window to the next (> 1)
     * @param window the window rates are compared over
     * @param floor requests per window always accepted, whatever the window before
     */
    public AccelerationLimit(double factor, Duration window, int floor) {
        if (!(factor > 1)) {
            throw new IllegalArgumentException("factor must be > 1, was " + factor);
        }
        this.factor = factor;
        this.windowNanos = window.toNanos();
        this.floor = floor;
    }

    /** Whether a request arriving {@code now} is accepted; if so it counts. */
    public synchronized boolean accepts(Instant now) {
        long t = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        while (!accepted.isEmpty() && t - accepted.peekFirst() > 2 * windowNanos) {
            accepted.pollFirst();
        }
        int current = 0;
        int previous = 0;
        for (long at : accepted) {
            if (t - at <= windowNanos) {
                current++;
            } else {
                previous++;
            }
        }
        if (current + 1 > Math.max(floor, factor * previous)) {
            return false;
        }
        accepted.addLast(t);
        return true;
    }

    @Override
    public String toString() {
        return "acceleration limit x" + factor + " per " + Duration.ofNanos(windowNanos) + " above " + floor;
    }
}
