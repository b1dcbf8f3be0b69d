package dev.sluice.instrumentation.hc5.helper;

import org.apache.hc.core5.concurrent.BasicFuture;
import org.apache.hc.core5.concurrent.FutureCallback;

/**
 * The future an application gets for a governed asynchronous call: completed by Sluice with what
 * the application's consumer made of the final answer; cancelling it stops the call (the attempt
 * in flight, the wait for admission, any further retry).
 */
final class CallFuture extends BasicFuture<Object> {

    private volatile AsyncTransport transport;

    CallFuture(FutureCallback<Object> callback) {
        super(callback);
    }

    void bind(AsyncTransport value) {
        transport = value;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        AsyncTransport t = transport;
        if (cancelled && t != null) {
            t.cancel();
        }
        return cancelled;
    }
}
