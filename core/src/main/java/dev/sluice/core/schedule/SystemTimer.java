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

    /**
     * Named classes rather than lambdas: the governor schedules its first tasks on the
     * application's start-up, where the JVM spins a class for each lambda (docs/startup-figures.md).
     */
    private static final Cancellable NOTHING_TO_CANCEL = new Cancellable() {
        @Override
        public void cancel() {}
    };

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        if (shutdown) {
            return NOTHING_TO_CANCEL;
        }
        return new Scheduled(AgentThread.schedule(new UnlessShutDown(task), delayNanos));
    }

    /** The task, unless the timer was shut down before its time came. */
    private final class UnlessShutDown implements Runnable {
        private final Runnable task;

        UnlessShutDown(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            if (!shutdown) {
                task.run();
            }
        }
    }

    private static final class Scheduled implements Cancellable {
        private final AgentThread.Task task;

        Scheduled(AgentThread.Task task) {
            this.task = task;
        }

        @Override
        public void cancel() {
            task.cancel();
        }
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }
}
