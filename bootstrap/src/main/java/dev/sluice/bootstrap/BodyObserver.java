package dev.sluice.bootstrap;

import java.util.List;
import java.util.Map;

/**
 * Sees the body of a successful response as the caller consumes it, so the governor can count
 * usage (JSON or SSE) and settle the reservation when the body ends, breaks or is closed.
 * Implemented by the governor; called by the transport's body tap. Implementations never throw.
 *
 * <p>At most one of {@link #onEnd()} and {@link #onFailure(Throwable)} is called, and
 * {@link #onClose()} may follow either or come alone (closed early). Each may arrive on any
 * thread; implementations settle exactly once whatever the order. {@link #onHeaders}, when a
 * transport gives it, comes before all of them.
 */
public interface BodyObserver {

    /** Sees nothing: the observer of a body nothing is settled on (an ungoverned send, say). */
    BodyObserver IGNORED = new BodyObserver() {
        @Override
        public void onBytes(byte[] chunk, int offset, int length) {}

        @Override
        public void onEnd() {}

        @Override
        public void onFailure(Throwable failure) {}

        @Override
        public void onClose() {}
    };

    /**
     * The headers of the response this body belongs to, given by a transport whose tap learns
     * them before the first byte (the JDK client's body handler). The governor can then count the
     * body as it comes, and learn from the headers and settle on the thread that read it as soon
     * as {@link #onEnd()} arrives, instead of on the caller's thread once the client has returned.
     * A transport that calls this
     * calls {@link #onEnd()} only after the application's own subscriber has the whole body, so
     * the settling runs while the caller goes on. Optional: without it, the governor learns the
     * headers when the transport returns the response.
     */
    default void onHeaders(Map<String, List<String>> headers) {}

    /**
     * Bytes the caller is about to receive (or the client has buffered for it). The array is only
     * lent for the call: a transport may reuse it, or pass the client's own buffer, so an
     * implementation copies what it keeps and never writes to it.
     */
    void onBytes(byte[] chunk, int offset, int length);

    /** The body was read to its end. */
    void onEnd();

    /** Reading the body failed (connection broke, cancelled). */
    void onFailure(Throwable failure);

    /** The caller closed the body, possibly before its end. */
    void onClose();
}
