package dev.sluice.instrumentation.okhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import okio.Buffer;
import okio.ForwardingSource;
import okio.Source;

/**
 * The source of a 2xx response body, reporting to the governor every byte the application reads
 * (copied, the application's buffer is untouched), the end, a read failure and the close.
 */
final class ObservedSource extends ForwardingSource {

    private final BodyObserver observer;
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    ObservedSource(Source delegate, BodyObserver observer) {
        super(delegate);
        this.observer = observer;
    }

    @Override
    public long read(Buffer sink, long byteCount) throws IOException {
        long read;
        try {
            read = super.read(sink, byteCount);
        } catch (IOException | RuntimeException e) {
            if (ended.compareAndSet(false, true)) {
                safely(() -> observer.onFailure(e));
            }
            throw e;
        }
        if (read == -1) {
            if (ended.compareAndSet(false, true)) {
                safely(observer::onEnd);
            }
        } else if (read > 0) {
            Buffer copy = new Buffer();
            sink.copyTo(copy, sink.size() - read, read);
            byte[] chunk = copy.readByteArray();
            safely(() -> observer.onBytes(chunk, 0, chunk.length));
        }
        return read;
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            if (closed.compareAndSet(false, true)) {
                safely(observer::onClose);
            }
        }
    }

    private static void safely(Runnable report) {
        try {
            report.run();
        } catch (Throwable ignored) {
            // the observer must never break the application's body
        }
    }
}
