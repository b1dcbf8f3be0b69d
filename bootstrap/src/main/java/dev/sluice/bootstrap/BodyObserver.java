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
 * thread; implementations settle exactly once whatever the order.
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
     * The response's headers, for a transport that has them before the body's first byte (the JDK
     * client's body handler). The observer may then read the body's usage where the body ends,
     * off the caller's thread, instead of waiting for the caller to be handed the response.
     * The map is only read; a transport that cannot tell the headers first never calls this.
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
