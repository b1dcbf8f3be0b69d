package dev.sluice.bootstrap;

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
