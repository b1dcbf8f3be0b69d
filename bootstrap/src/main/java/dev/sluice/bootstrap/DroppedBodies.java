package dev.sluice.bootstrap;

import java.lang.ref.Cleaner;
import java.util.concurrent.ThreadFactory;

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
 * <p>One cleaner thread serves every copy of every instrumentation (this class lives on the
 * bootstrap class path); it is started with the first governed body, not at agent start.
 */
public final class DroppedBodies {

    private DroppedBodies() {}

    /** Created with the first body registered: an application that never streams a body starts no thread. */
    private static final class Holder {
        static final Cleaner CLEANER = Cleaner.create(new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "sluice-dropped-bodies");
                t.setDaemon(true);
                t.setContextClassLoader(null); // pins no application class loader
                return t;
            }
        });
    }

    /**
     * Runs {@code release} once, when {@code body} becomes unreachable or when the returned
     * handle's {@code clean()} is called, whichever comes first. {@code release} must not reference
     * {@code body} and must not throw. Returns null when the cleaner cannot be had (the body then
     * relies on its close and on the lease reaper, as before).
     */
    public static Cleaner.Cleanable watch(Object body, Runnable release) {
        try {
            return Holder.CLEANER.register(body, release);
        } catch (Throwable fault) {
            Bridge.hookFault("dropped-bodies:register", fault);
            return null;
        }
    }
}
