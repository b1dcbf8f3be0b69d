package dev.sluice.core.schedule;

/**
 * Runs the governor's delayed work: waking the dispatcher when room comes back, expiring
 * deadlines, reaping leases. Abstracted so tests drive it with a fake clock.
 */
public interface Timer {

    /** Runs {@code task} once after {@code delayNanos}; the returned handle cancels it. */
    Cancellable schedule(Runnable task, long delayNanos);

    /** Stops the timer; pending tasks are dropped. */
    void shutdown();

    /** A scheduled task that can be cancelled. */
    interface Cancellable {
        void cancel();
    }
}
