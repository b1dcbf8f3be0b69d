package dev.sluice.instrumentation.hc4.helper;

import dev.sluice.bootstrap.BodyObserver;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * HttpClient's body stream as the application reads it: each chunk is copied to the governor,
 * the end and a read failure reported once. Holds its {@link ObservedEntity}, so the entity stays
 * reachable (not released as dropped) while the application reads the stream alone.
 */
final class ObservedContent extends FilterInputStream {

    private final BodyObserver observer;
    private final ObservedEntity owner;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    ObservedContent(InputStream in, BodyObserver observer, ObservedEntity owner) {
        super(in);
        this.observer = observer;
        this.owner = owner;
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
            owner.closed();
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
