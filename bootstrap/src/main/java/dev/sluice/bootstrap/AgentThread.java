package dev.sluice.bootstrap;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The agent's one background thread, {@code sluice-governor}: it runs the governor's delayed work
 * (the timer in core's {@code SystemTimer}) and releases the bodies the application dropped
 * unread ({@link DroppedBodies}), work that used to take a thread each. With a store the agent
 * owns two threads, this one and the store's.
 *
 * <p>It sleeps while there is nothing to do. Waiting for the next task, it blocks on the queue of
 * dropped bodies' references, so a dropped body wakes it as a due task does; a task scheduled
 * before the one it waits for wakes it with a reference enqueued by hand. Waits under 2 ms are
 * parked instead (the queue's wait has millisecond steps), during which dropped bodies wait their
 * turn for at most that long.
 *
 * <p>Lives on the bootstrap class path, so every copy of every instrumentation and the governor
 * share it; started by the first use, not at agent start.
 */
public final class AgentThread {

    /** A delayed task; {@link #cancel()} keeps it from running. */
    public static final class Task implements Comparable<Task> {
        private final Runnable work;
        private final long dueNanos;
        private final long order;
        private volatile boolean cancelled;

        private Task(Runnable work, long dueNanos, long order) {
            this.work = work;
            this.dueNanos = dueNanos;
            this.order = order;
        }

        /** Keeps the task from running and drops it from the queue (a later one may be scheduled instead). */
        public void cancel() {
            cancelled = true;
            LOCK.lock();
            try {
                TASKS.remove(this);
            } finally {
                LOCK.unlock();
            }
        }

        @Override
        public int compareTo(Task other) {
            long d = dueNanos - other.dueNanos;
            return d != 0 ? (d < 0 ? -1 : 1) : Long.compare(order, other.order);
        }
    }

    /** The queue dropped bodies' references are enqueued on; the thread serves it. */
    static final ReferenceQueue<Object> REFERENCES = new ReferenceQueue<>();

    private static final long PARK_BELOW_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private static final ReentrantLock LOCK = new ReentrantLock();
    // guarded by LOCK
    private static final PriorityQueue<Task> TASKS = new PriorityQueue<>();
    private static long scheduled;
    private static Thread thread;
    private static volatile boolean running;
    /** The thread waits on {@link #REFERENCES}, not parked: a wake-up must be enqueued there. */
    private static boolean waitingOnReferences;

    private static final Object WAKE = new Object();

    private AgentThread() {}

    /** Runs {@code work} on the thread after {@code delayNanos}; it must not block for long. */
    public static Task schedule(Runnable work, long delayNanos) {
        LOCK.lock();
        try {
            Task task = new Task(work, System.nanoTime() + Math.max(0, delayNanos), scheduled++);
            TASKS.add(task);
            Thread t = started();
            if (TASKS.peek() == task) {
                if (waitingOnReferences) {
                    new java.lang.ref.PhantomReference<>(WAKE, REFERENCES).enqueue();
                } else {
                    LockSupport.unpark(t);
                }
            }
            return task;
        } finally {
            LOCK.unlock();
        }
    }

    /** Starts the thread if it is not running. Lock held. */
    private static Thread started() {
        if (thread == null) {
            // not AgentThread::run: a lambda is a class the JVM spins at start-up (docs/startup-figures.md)
            Thread t = new Thread(
                    new Runnable() {
                        @Override
                        public void run() {
                            AgentThread.run();
                        }
                    },
                    "sluice-governor");
            t.setDaemon(true);
            t.setContextClassLoader(null); // pins no application class loader
            thread = t;
            t.start();
            running = true;
        }
        return thread;
    }

    /** Makes sure the thread serves {@link #REFERENCES}: the first dropped body's watch calls it. */
    static void ensureStarted() {
        if (running) {
            return;
        }
        LOCK.lock();
        try {
            started();
        } finally {
            LOCK.unlock();
        }
    }

    private static void run() {
        while (true) {
            Task due = null;
            long waitNanos = -1; // -1: until a reference or a task comes
            LOCK.lock();
            try {
                Task head = TASKS.peek();
                if (head != null) {
                    long left = head.dueNanos - System.nanoTime();
                    if (left <= 0) {
                        due = TASKS.poll();
                    } else {
                        waitNanos = left;
                    }
                }
                waitingOnReferences = due == null && (waitNanos < 0 || waitNanos >= PARK_BELOW_NANOS);
            } finally {
                LOCK.unlock();
            }
            if (due != null) {
                if (!due.cancelled) {
                    runSafely(due.work);
                }
                releaseDropped(REFERENCES.poll());
                continue;
            }
            try {
                if (waitNanos < 0) {
                    releaseDropped(REFERENCES.remove());
                } else if (waitNanos >= PARK_BELOW_NANOS) {
                    releaseDropped(REFERENCES.remove(TimeUnit.NANOSECONDS.toMillis(waitNanos) - 1));
                } else {
                    LockSupport.parkNanos(waitNanos);
                    releaseDropped(REFERENCES.poll());
                }
            } catch (InterruptedException ignored) {
                // nobody but the JVM's end interrupts this thread; carry on
            }
        }
    }

    /** Runs the release of {@code first} and of every other reference already enqueued. */
    private static void releaseDropped(Reference<?> first) {
        for (Reference<?> r = first; r != null; r = REFERENCES.poll()) {
            if (r instanceof DroppedBodies.Watch) {
                runSafely((DroppedBodies.Watch) r);
            }
        }
    }

    private static void runSafely(Runnable work) {
        try {
            work.run();
        } catch (Throwable ignored) {
            // a task's fault is its own; the thread goes on serving the others
        }
    }
}
