package dev.sluice.bootstrap;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What an {@link HttpTransport} keeps of the attempts of its call: how many it sent, the buffered
 * body of each error response the governance may still read, and the last response it neither
 * handed back nor discarded (released by the hook if Sluice fails holding it). Responses are the
 * library's own objects, known by identity.
 *
 * @param <R> the library's response type
 */
public final class Attempts<R> {

    private final AtomicInteger sent = new AtomicInteger();
    private final Map<Object, byte[]> errorBodies = new ConcurrentHashMap<>();
    private volatile R unclaimed;

    /** An attempt is about to leave. */
    public void sending() {
        sent.incrementAndGet();
    }

    /** How many attempts left the JVM, or started to. */
    public int sent() {
        return sent.get();
    }

    /** The last attempt's response, the governance's to hand back or discard. */
    public R answered(R response) {
        unclaimed = response;
        return response;
    }

    /** The last attempt's response, a non-2xx whose body was read whole for the governance. */
    public R answeredWithError(R response, byte[] body) {
        errorBodies.put(response, body == null ? new byte[0] : body);
        return answered(response);
    }

    /** The buffered body of an error response; empty when it had none (or is not one). */
    public byte[] errorBody(Object response) {
        byte[] bytes = errorBodies.get(response);
        return bytes == null ? new byte[0] : bytes;
    }

    /** The response goes to the caller, or is discarded: no longer held. Returns its buffered body, or null. */
    public byte[] release(Object response) {
        if (unclaimed == response) {
            unclaimed = null;
        }
        return errorBodies.remove(response);
    }

    /** The response neither handed back nor discarded, taken: the hook releases it. Null when none. */
    public R takeUnclaimed() {
        R response = unclaimed;
        unclaimed = null;
        return response;
    }

    /** The call is over: nothing of its responses is kept. */
    public void clear() {
        errorBodies.clear();
    }
}
