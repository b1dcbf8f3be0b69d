package dev.sluice.core.retry;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ProtocolException;

/**
 * Which failures of an attempt that got no answer another attempt may cure. A connection reset,
 * a refused connection or a timeout are transient: the provider did not do the work, so sending
 * again costs nothing it has not already refused. A protocol violation (a header block larger
 * than the client accepts, a malformed status line) fails the same way every time.
 */
public final class ConnectionFailures {

    private ConnectionFailures() {}

    /** Whether another attempt may succeed where this failure ended the last one. */
    public static boolean mayRetry(Throwable failure) {
        if (!(failure instanceof IOException)
                || failure instanceof InterruptedIOException
                        && Thread.currentThread().isInterrupted()) {
            return false;
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ProtocolException) {
                return false;
            }
        }
        return true;
    }
}
