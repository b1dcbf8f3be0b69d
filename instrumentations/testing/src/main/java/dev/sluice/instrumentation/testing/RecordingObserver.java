package dev.sluice.instrumentation.testing;

import dev.sluice.bootstrap.BodyObserver;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A {@link BodyObserver} that keeps what it was told, as the governor's settling observer would see it. */
public final class RecordingObserver implements BodyObserver {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final AtomicInteger ends = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger closes = new AtomicInteger();
    private final AtomicInteger headersTold = new AtomicInteger();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    @Override
    public void onHeaders(Map<String, List<String>> headers) {
        headersTold.incrementAndGet();
    }

    @Override
    public void onBytes(byte[] chunk, int offset, int length) {
        synchronized (bytes) {
            bytes.write(chunk, offset, length);
        }
    }

    @Override
    public void onEnd() {
        ends.incrementAndGet();
    }

    @Override
    public void onFailure(Throwable cause) {
        failure.compareAndSet(null, cause);
        failures.incrementAndGet();
    }

    @Override
    public void onClose() {
        closes.incrementAndGet();
    }

    /** The bytes seen so far, as text. */
    public String text() {
        synchronized (bytes) {
            return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
        }
    }

    public int byteCount() {
        synchronized (bytes) {
            return bytes.size();
        }
    }

    public int ends() {
        return ends.get();
    }

    public int failures() {
        return failures.get();
    }

    public int closes() {
        return closes.get();
    }

    public Throwable failure() {
        return failure.get();
    }

    /** Whether the body reached an end the governor settles on: its end, a failure or a close. */
    public boolean settled() {
        return ends.get() + failures.get() + closes.get() > 0;
    }

    /** Whether the observer was used at all. */
    public boolean told() {
        return byteCount() > 0 || settled();
    }

    @Override
    public String toString() {
        return "observer{bytes=" + byteCount() + ", ends=" + ends + ", failures=" + failures + ", closes=" + closes
                + ", headers=" + headersTold + "}";
    }
}
