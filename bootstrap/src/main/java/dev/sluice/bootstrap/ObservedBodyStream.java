package dev.sluice.bootstrap;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A response body stream as the application reads it: each chunk is copied to the governor, the
 * end and a read failure reported once, the close handed to {@code onClose}. An HTTP client's hook
 * passes its wrapper's close as {@code onClose}, which keeps that wrapper reachable (not released
 * as a dropped body) while the application reads the stream alone.
 */
public final class ObservedBodyStream extends FilterInputStream {

    private final BodyObserver observer;
    private final Runnable onClose;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    public ObservedBodyStream(InputStream in, BodyObserver observer, Runnable onClose) {
        super(in);
        this.observer = observer;
        this.onClose = onClose;
    }

    @Override
    public int read() throws IOException {
        int b;
        try {
            b = super.read();
        } catch (IOException | RuntimeException e) {
            failed(e);
            throw e;
        }
        if (b == -1) {
            ended();
        } else {
            bytes(new byte[] {(byte) b}, 0, 1);
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n;
        try {
            n = in.read(buffer, offset, length);
        } catch (IOException | RuntimeException e) {
            failed(e);
            throw e;
        }
        if (n == -1) {
            ended();
        } else if (n > 0) {
            bytes(Arrays.copyOfRange(buffer, offset, offset + n), 0, n);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        // read, not skipped below: the governor must see every byte (usage is at the end)
        byte[] buffer = new byte[(int) Math.min(8192, Math.max(0, n))];
        long skipped = 0;
        while (skipped < n) {
            int r = read(buffer, 0, (int) Math.min(buffer.length, n - skipped));
            if (r < 0) {
                break;
            }
            skipped += r;
        }
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    @Override
    public void close() throws IOException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            super.close();
        } finally {
            onClose.run();
        }
    }

    private void bytes(byte[] chunk, int offset, int length) {
        try {
            observer.onBytes(chunk, offset, length);
        } catch (Throwable ignored) {
            // the observer must never break the application's body
        }
    }

    private void ended() {
        if (ended.compareAndSet(false, true)) {
            try {
                observer.onEnd();
            } catch (Throwable ignored) {
                // see bytes
            }
        }
    }

    private void failed(Throwable failure) {
        if (ended.compareAndSet(false, true)) {
            try {
                observer.onFailure(failure);
            } catch (Throwable ignored) {
                // see bytes
            }
        }
    }
}
