package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.DroppedBodies;
import dev.sluice.bootstrap.ObservedBodyStream;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.http.AbortableInputStream;

/**
 * The body of a governed 2xx answer of a synchronous AWS HTTP client: every byte the SDK reads is
 * reported to the governor, as are the end, a read failure and the close. The stream handed out is
 * the only way to the body: once it is unreachable nobody can read the body, and one the
 * application dropped unclosed is released for it (see {@link DroppedBodies}).
 */
final class BodyTap implements Runnable {

    private final Release release;
    /** Null when no cleaner could be had: then only a close reports. */
    private Cleaner.Cleanable whenDropped;

    private BodyTap(Release release) {
        this.release = release;
    }

    /** The body to hand out in place of {@code body}; aborting it aborts the client's. */
    static AbortableInputStream tap(AbortableInputStream body, BodyObserver observer) {
        BodyTap tap = new BodyTap(new Release(body, observer));
        ObservedBodyStream observed = new ObservedBodyStream(body, observer, tap);
        tap.whenDropped = DroppedBodies.watch(observed, tap.release);
        return AbortableInputStream.create(observed, body);
    }

    /** The observed stream was closed: the observer hears it once. */
    @Override
    public void run() {
        release.closedByCaller = true;
        Cleaner.Cleanable w = whenDropped;
        if (w != null) {
            w.clean(); // unregisters, and runs the release unless the cleaner did
        } else {
            release.run();
        }
    }

    /** What a close or a drop gives back. Holds the client's stream and the observer, never the observed stream. */
    private static final class Release implements Runnable {
        private final AbortableInputStream body;
        private final BodyObserver observer;
        private final AtomicBoolean done = new AtomicBoolean();
        volatile boolean closedByCaller;

        Release(AbortableInputStream body, BodyObserver observer) {
            this.body = body;
            this.observer = observer;
        }

        @Override
        public void run() {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            try {
                observer.onClose();
            } catch (Throwable ignored) {
                // the observer must never break the application's body
            }
            if (!closedByCaller) {
                try {
                    body.abort(); // dropped unread: the connection is not worth draining
                } catch (Throwable ignored) {
                    // a body we release may already be broken
                }
            }
        }
    }
}
