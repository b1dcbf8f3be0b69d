package dev.sluice.core;

import dev.sluice.core.schedule.Timer;
import java.time.Duration;
import java.util.PriorityQueue;

/**
 * A timer driven by a {@link FakeClock}: tasks run when a test advances time past their due time,
 * on the test's thread, in due order.
 */
public final class ManualTimer implements Timer {

    private final FakeClock clock;
    private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> Long.compare(a.due, b.due));
    private long sequence;

    public ManualTimer(FakeClock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized Cancellable schedule(Runnable task, long delayNanos) {
        Task t = new Task(task, clock.nanoTime() + Math.max(0, delayNanos), sequence++);
        tasks.add(t);
        return () -> {
            synchronized (ManualTimer.this) {
                tasks.remove(t);
            }
        };
    }

    @Override
    public synchronized void shutdown() {
        tasks.clear();
    }

    /** Moves time forward, running every task that falls due on the way, at its due time. */
    public void advance(Duration d) {
        long end = clock.nanoTime() + d.toNanos();
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.due > end) {
                    break;
                }
                tasks.poll();
            }
            long now = clock.nanoTime();
            if (next.due > now) {
                clock.advanceNanos(next.due - now);
            }
            next.runnable.run();
        }
        long now = clock.nanoTime();
        if (end > now) {
            clock.advanceNanos(end - now);
        }
    }

    public synchronized int pending() {
        return tasks.size();
    }

    private static final class Task {
        final Runnable runnable;
        final long due;
        final long seq;

        Task(Runnable runnable, long due, long seq) {
            this.runnable = runnable;
            this.due = due;
            this.seq = seq;
        }
    }
}
