package dev.sluice.bootstrap;

import java.lang.ref.Cleaner;
import java.lang.ref.PhantomReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Gives back what a response body holds in the governor (its reservation, its concurrency slot)
 * when the application drops the body without reading it to the end or closing it. Without this,
 * such a body holds its permit until the lease reaper expires it, minutes later, and meanwhile
 * counts against every limit on its path.
 *
 * <p>A body tap registers the object every view of the body goes through (the stream or source
 * the application reads, directly or through wrappers) with a release action. The action runs
 * once: when the tap's own close runs it (through the returned {@link Cleaner.Cleanable}), or
 * when the object becomes phantom reachable. The action must not reference the object, or it
 * would never become unreachable; it typically holds the library's underlying stream (closing it
 * gives the connection back) and the governor's {@link BodyObserver}.
 *
 * <p>The agent's one thread ({@link AgentThread}, which also runs the governor's timer) serves
 * every copy of every instrumentation (this class lives on the bootstrap class path); a
 * {@code Cleaner} would take a thread of its own.
 */
public final class DroppedBodies {

    private DroppedBodies() {}

    /** The watches not yet run: a reference must stay reachable to be enqueued. */
    private static final Set<Watch> LIVE = ConcurrentHashMap.newKeySet();

    /** A watched body's release, run once: by its clean, or by the agent's thread when the body goes. */
    static final class Watch extends PhantomReference<Object> implements Cleaner.Cleanable, Runnable {
        private final AtomicReference<Runnable> release;

        Watch(Object body, Runnable release) {
            super(body, AgentThread.REFERENCES);
            this.release = new AtomicReference<>(release);
        }

        @Override
        public void clean() {
            Runnable r = release.getAndSet(null);
            if (r != null) {
                // Not clear()ed: on JDK 17 that is a native call on every body's close, and it only
                // spares the agent's thread a no-op run for a watch kept past its body. The taps keep
                // their watch in the watched object itself (Reactor Netty's keeps none), so once out
                // of LIVE the two become unreachable together and the watch is never enqueued.
                LIVE.remove(this);
                r.run();
            }
        }

        @Override
        public void run() {
            clean();
        }
    }

    /**
     * Runs {@code release} once, when {@code body} becomes unreachable or when the returned
     * handle's {@code clean()} is called, whichever comes first. {@code release} must not reference
     * {@code body} and must not throw. Returns null when the watch cannot be had (the body then
     * relies on its close and on the lease reaper, as before).
     */
    public static Cleaner.Cleanable watch(Object body, Runnable release) {
        try {
            Watch w = new Watch(body, release);
            LIVE.add(w);
            AgentThread.ensureStarted();
            return w;
        } catch (Throwable fault) {
            Bridge.hookFault("dropped-bodies:register", fault);
            return null;
        }
    }
}
