package dev.sluice.instrumentation.jdkhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicBoolean;

/** The JDK's response InputStream, with its close reported to the governor (once). */
final class ObservedInputStream extends FilterInputStream {

    private final BodyObserver observer;
    private final AtomicBoolean closed = new AtomicBoolean();

    ObservedInputStream(InputStream in, BodyObserver observer) {
        super(in);
        this.observer = observer;
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            if (closed.compareAndSet(false, true)) {
                try {
                    observer.onClose();
                } catch (Throwable ignored) {
                    // the observer must never break the application's close
                }
            }
        }
    }
}
