package dev.sluice.instrumentation.awssdk.helper;

import java.util.concurrent.CompletableFuture;

/**
 * The future the SDK gets from {@code SdkAsyncHttpClient.execute} for a governed call: completed
 * by Sluice when the final answer's exchange ends. The SDK cancels it (an abort) or completes it
 * exceptionally (its attempt timeout, a failed response handler) to stop the exchange: either
 * stops the governed call too (the attempt in flight, the wait for admission, any further retry).
 */
final class CallFuture extends CompletableFuture<Void> {

    private volatile AsyncTransport transport;

    void bind(AsyncTransport value) {
        transport = value;
    }

    /** Sluice's own completion: the final exchange ended, well or not. */
    void end(Throwable failure) {
        if (failure == null) {
            super.complete(null);
        } else {
            super.completeExceptionally(failure);
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        stopped();
        return cancelled;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        boolean done = super.completeExceptionally(failure);
        stopped();
        return done;
    }

    private void stopped() {
        AsyncTransport t = transport;
        if (t != null) {
            t.cancel();
        }
    }
}
