package dev.sluice.bootstrap;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The governed body of a 2xx answer whose client hands the application an entity to open a stream
 * from (Apache HttpClient 4 and 5): what the entity taps of both clients do alike, without their
 * types. Every byte read through the stream it opens is reported to the {@link BodyObserver}, as
 * are the end, a read failure and the close, which settle the reservation.
 *
 * <p>The tap of each client is an entity wrapper of its library's own type (the <em>view</em>):
 * every view of the body goes through it, and the stream handed out keeps it reachable. A body the
 * application dropped unread and unclosed is released once the view is unreachable (see {@link
 * DroppedBodies}): the governor gets its permit back at once, the client its connection once the
 * rest of the body is drained on a thread of its own, as the client's own close drains it.
 */
public final class EntityBody {

    /** The client's own entity, as the tap needs it. */
    public interface Source {
        /** Opens the client's stream of the body; called once. */
        InputStream open() throws IOException;

        /** Lets go of a body nobody opened, as the client's own close of its entity does. */
        void closeUnopened() throws IOException;

        /** Reads what is left and gives the connection back: the release of a dropped body. Never throws. */
        void drain();
    }

    private final Source source;
    private final BodyObserver observer;
    private final Release release;
    /** Null when no cleaner could be had: then only a close reports. */
    private final Cleaner.Cleanable whenDropped;

    private InputStream content;

    /**
     * @param view the object every view of the body goes through (the client's entity wrapper):
     *     released when it becomes unreachable
     * @param drainThread the name of the thread that drains a dropped body
     */
    public EntityBody(Object view, Source source, BodyObserver observer, String drainThread) {
        this.source = source;
        this.observer = observer;
        this.release = new Release(source, observer, drainThread);
        this.whenDropped = DroppedBodies.watch(view, release);
    }

    /** The stream the application reads, opened once; it keeps {@code view} reachable while it is. */
    public synchronized InputStream content(Object view) throws IOException {
        if (content == null) {
            content = new ObservedBodyStream(source.open(), observer, new Closed(this, view));
        }
        return content;
    }

    /** Writes the whole body through the stream the application would read, then closes it. */
    public void writeTo(OutputStream out, Object view) throws IOException {
        InputStream in = content(view);
        try {
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) != -1; ) {
                out.write(buffer, 0, n);
            }
        } finally {
            in.close();
        }
    }

    /** The entity's own close: its stream's, or the client's close of an entity nobody opened. */
    public void close() throws IOException {
        InputStream in;
        synchronized (this) {
            in = content;
        }
        try {
            if (in != null) {
                in.close();
            } else {
                source.closeUnopened();
            }
        } finally {
            closed();
        }
    }

    /**
     * The application let go of the body (closed it, its stream, or its response): the observer
     * hears the close, once; nothing is drained.
     */
    public void closed() {
        release.closedByCaller = true;
        if (whenDropped != null) {
            whenDropped.clean(); // unregisters, and runs the release unless the cleaner did
        } else {
            release.run();
        }
    }

    /** The close of the stream handed out: holds the view, so the stream keeps it reachable. */
    private static final class Closed implements Runnable {
        private final EntityBody body;
        /** Never read: held so that a stream being read alone keeps its view from being released as dropped. */
        @SuppressWarnings("unused")
        private final Object view;

        Closed(EntityBody body, Object view) {
            this.body = body;
            this.view = view;
        }

        @Override
        public void run() {
            body.closed();
        }
    }

    /** What a close or a drop gives back. Holds the client's entity and the observer, never the view. */
    private static final class Release implements Runnable {
        private final Source source;
        private final BodyObserver observer;
        private final String drainThread;
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile boolean closedByCaller;

        Release(Source source, BodyObserver observer, String drainThread) {
            this.source = source;
            this.observer = observer;
            this.drainThread = drainThread;
        }

        /** Run once: by a close, or by the agent's thread for a dropped body. */
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
                Thread drain = new Thread(new Drain(source), drainThread);
                drain.setDaemon(true);
                drain.start();
            }
        }
    }

    /** Drains a dropped body on a thread of its own: the agent's thread never reads the network. */
    private static final class Drain implements Runnable {
        private final Source source;

        Drain(Source source) {
            this.source = source;
        }

        @Override
        public void run() {
            try {
                source.drain();
            } catch (Throwable ignored) {
                // a body we release may already be broken
            }
        }
    }
}
