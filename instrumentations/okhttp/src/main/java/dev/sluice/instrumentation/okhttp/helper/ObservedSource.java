package dev.sluice.instrumentation.okhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.DroppedBodies;
import dev.sluice.bootstrap.TapBuffer;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import okio.Buffer;
import okio.ForwardingSource;
import okio.Source;

/**
 * The source of a 2xx response body, reporting to the governor every byte the application reads
 * (copied, the application's buffer is untouched), the end, a read failure and the close.
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

    /** Reused by every read: the observer copies what it keeps, and reads of one source never overlap. */
    private final ChunkCopy copy = new ChunkCopy();

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
            copy.reset((int) read);
            sink.copyTo(copy, sink.size() - read, read);
            try {
                observer.onBytes(copy.bytes, 0, copy.size);
            } catch (Throwable ignored) {
                // as above
            }
        }
        return read;
    }

    /**
     * Takes a copy of what was just read straight into an array. A stream, not
     * {@code Buffer.copyTo(Buffer)}, which would share okio's segments with the application's
     * buffer; not a {@code ByteArrayOutputStream}, whose {@code toByteArray()} copied every read a
     * second time.
     */
    private static final class ChunkCopy extends OutputStream {
        private final TapBuffer buffer = new TapBuffer();
        byte[] bytes;
        int size;

        /** Empty, with room for {@code capacity} bytes. */
        void reset(int capacity) {
            bytes = buffer.room(capacity);
            size = 0;
        }

        @Override
        public void write(int b) {
            bytes[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            System.arraycopy(b, off, bytes, size, len);
            size += len;
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
