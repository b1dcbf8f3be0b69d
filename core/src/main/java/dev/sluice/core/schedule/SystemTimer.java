package dev.sluice.core.schedule;

import dev.sluice.bootstrap.AgentThread;

/**
 * The production {@link Timer}: the agent's one background thread, {@code sluice-governor}
 * ({@link AgentThread}, shared with the release of dropped bodies), which sleeps while there is
 * nothing to do (no periodic wake-ups when idle). After {@link #shutdown()} its tasks, pending or
 * new, do not run.
 */
public final class SystemTimer implements Timer {

    private volatile boolean shutdown;

    public SystemTimer() {}

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        if (shutdown) {
            return () -> {};
        }
        AgentThread.Task scheduled = AgentThread.schedule(
                () -> {
                    if (!shutdown) {
                        task.run();
                    }
                },
                delayNanos);
        return scheduled::cancel;
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }
}
