package dev.sluice.instrumentation.okhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.DroppedBodies;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import okio.Buffer;
import okio.ForwardingSource;
import okio.Source;

/**
 * The source of a 2xx response body, reporting to the governor every byte the application reads
 * (shown where okio keeps them, the application's buffer untouched), the end, a read failure and the close.
 *
 * <p>Every view of the body ({@code ResponseBody}, its {@code source()}, {@code byteStream()},
 * {@code charStream()}) reads through this object, so once it is unreachable nobody can read the
 * body any more: a body the application drops without closing is then closed for it, which gives
 * OkHttp its connection back and the governor its permit (see {@link DroppedBodies}).
 */
final class ObservedSource extends ForwardingSource {

    private final BodyObserver observer;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final Release release;
    /** Null when no cleaner could be had: then only a close reports. */
    private final Cleaner.Cleanable whenDropped;

    /**
     * Reused by every read (a cursor is free again once closed; reads of one source never overlap).
     * Made at the first read, inside its guard: an okio older than 1.14 has no cursor.
     */
    private Buffer.UnsafeCursor segments;

    ObservedSource(Source delegate, BodyObserver observer) {
        super(delegate);
        this.observer = observer;
        this.release = new Release(delegate, observer);
        this.whenDropped = DroppedBodies.watch(this, release);
    }

    // The observer is called in try blocks, not through a safely(Runnable) lambda: that allocated
    // per read, and on the first call each lambda is a class the JVM spins (docs/startup-figures.md).
    @Override
    public long read(Buffer sink, long byteCount) throws IOException {
        long read;
        try {
            read = super.read(sink, byteCount);
        } catch (IOException | RuntimeException e) {
            if (ended.compareAndSet(false, true)) {
                try {
                    observer.onFailure(e);
                } catch (Throwable ignored) {
                    // the observer must never break the application's body
                }
            }
            throw e;
        }
        if (read == -1) {
            if (ended.compareAndSet(false, true)) {
                try {
                    observer.onEnd();
                } catch (Throwable ignored) {
                    // as above
                }
            }
        } else if (read > 0) {
            tap(sink, read);
        }
        return read;
    }

    /**
     * Shows the observer the {@code read} bytes just appended to {@code sink} where okio keeps
     * them, a segment at a time: no copy (the observer copies what it keeps), and a read-only
     * cursor neither shares nor changes the application's segments, as {@code copyTo} would.
     */
    private void tap(Buffer sink, long read) {
        try {
            if (segments == null) {
                segments = new Buffer.UnsafeCursor();
            }
            sink.readUnsafe(segments);
            try {
                long left = read;
                segments.seek(sink.size() - read);
                while (left > 0) {
                    int length = (int) Math.min(left, segments.end - segments.start);
                    observer.onBytes(segments.data, segments.start, length);
                    left -= length;
                    if (left > 0 && segments.next() == -1) {
                        break;
                    }
                }
            } finally {
                segments.close();
            }
        } catch (Throwable ignored) {
            // the observer must never break the application's body
        }
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            if (whenDropped != null) {
                whenDropped.clean(); // unregisters, and runs the release unless the cleaner did
            } else {
                release.run();
            }
        }
    }

    /**
     * What closing gives back. Holds OkHttp's source and the observer, never the
     * {@link ObservedSource}: the cleaner could not see that become unreachable.
     */
    private static final class Release implements Runnable {
        private final Source okhttpSource;
        private final BodyObserver observer;
        private final AtomicBoolean done = new AtomicBoolean();

        Release(Source okhttpSource, BodyObserver observer) {
            this.okhttpSource = okhttpSource;
            this.observer = observer;
        }

        @Override
        public void run() {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            try {
                okhttpSource.close(); // idempotent in OkHttp; after a drop, frees the connection
            } catch (Throwable ignored) {
                // a body we release may already be broken
            }
            try {
                observer.onClose();
            } catch (Throwable ignored) {
                // the observer must never break the application's body
            }
        }
    }
}
