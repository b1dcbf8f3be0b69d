package dev.sluice.core.schedule;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The production {@link Timer}: one daemon thread, {@code sluice-governor}, that sleeps while there
 * is nothing to do (no periodic wake-ups when idle).
 */
public final class SystemTimer implements Timer {

    private final ScheduledThreadPoolExecutor executor;

    public SystemTimer() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-governor");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void shutdown() {
        executor.shutdownNow();
    }
}
