package dev.sluice.instrumentation.hc5.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.DroppedBodies;
import dev.sluice.bootstrap.ObservedBodyStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;

/**
 * The entity of a governed 2xx response: every byte the application reads (through
 * {@link #getContent()} or {@link #writeTo}) is reported to the governor, as are the end, a read
 * failure and the close, which settle the reservation.
 *
 * <p>Every view of the body goes through this object (the stream it hands out holds it), and
 * nothing of HttpClient's references it: once it is unreachable nobody can read the body any
 * more, and a body the application dropped unread is released for it (see {@link DroppedBodies}):
 * the governor gets its permit back at once, HttpClient its connection once the rest of the body
 * is drained (on a thread of its own, as HttpClient's close drains it).
 */
final class ObservedEntity extends HttpEntityWrapper {

    private final HttpEntity wrapped;
    private final BodyObserver observer;
    private final Release release;
    /** Null when no cleaner could be had: then only a close reports. */
    private final Cleaner.Cleanable whenDropped;

    private InputStream content;

    ObservedEntity(HttpEntity wrapped, BodyObserver observer) {
        super(wrapped);
        this.wrapped = wrapped;
        this.observer = observer;
        this.release = new Release(wrapped, observer);
        this.whenDropped = DroppedBodies.watch(this, release);
    }

    @Override
    public synchronized InputStream getContent() throws IOException {
        if (content == null) {
            content = new ObservedBodyStream(wrapped.getContent(), observer, this::closed);
        }
        return content;
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        InputStream in = getContent();
        try {
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) != -1; ) {
                out.write(buffer, 0, n);
            }
        } finally {
            in.close();
        }
    }

    @Override
    public boolean isRepeatable() {
        return false;
    }

    @Override
    public void close() throws IOException {
        InputStream in;
        synchronized (this) {
            in = content;
        }
        try {
            if (in != null) {
                in.close();
            } else {
                wrapped.close();
            }
        } finally {
            closed();
        }
    }

    /** The body was closed (by the application, or through its stream): the observer hears it once. */
    void closed() {
        release.closedByCaller = true;
        if (whenDropped != null) {
            whenDropped.clean(); // unregisters, and runs the release unless the cleaner did
        } else {
            release.run(false);
        }
    }

    /** What a close or a drop gives back. Holds HttpClient's entity and the observer, never the {@link ObservedEntity}. */
    private static final class Release implements Runnable {
        private final HttpEntity wrapped;
        private final BodyObserver observer;
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile boolean closedByCaller;

        Release(HttpEntity wrapped, BodyObserver observer) {
            this.wrapped = wrapped;
            this.observer = observer;
        }

        /** Run by the cleaner: either after {@link #run(boolean)} (nothing left) or for a dropped body. */
        @Override
        public void run() {
            run(!closedByCaller);
        }

        void run(boolean dropped) {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            try {
                observer.onClose();
            } catch (Throwable ignored) {
                // the observer must never break the application's body
            }
            if (dropped) {
                Thread drain = new Thread(
                        () -> {
                            try {
                                wrapped.close(); // drains what is left and gives the connection back to the pool
                            } catch (Throwable ignored) {
                                // a body we release may already be broken
                            }
                        },
                        "sluice-hc5-dropped-body");
                drain.setDaemon(true);
                drain.start();
            }
        }
    }
}
