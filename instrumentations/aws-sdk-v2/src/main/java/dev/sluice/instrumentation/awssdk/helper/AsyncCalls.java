package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;

/**
 * {@code SdkAsyncHttpClient.execute(AsyncExecuteRequest)} of a governed request: never blocks (the
 * SDK may call it on an event-loop thread). The SDK gets a {@link CallFuture} at once, completed by
 * Sluice; the governor sends the attempts through the same client.
 */
final class AsyncCalls {

    private AsyncCalls() {}

    static CallOutcome enter(Object self, Object[] args) {
        if (!(self instanceof SdkAsyncHttpClient)
                || args == null
                || args.length != 1
                || !(args[0] instanceof AsyncExecuteRequest)) {
            return null;
        }
        AsyncExecuteRequest request = (AsyncExecuteRequest) args[0];
        if (request.responseHandler() == null) {
            return null;
        }
        String url = request.request().getUri().toString();
        Governance governance = Bridge.governance();
        if (!governance.governs(url)) {
            return null;
        }
        CallFuture future = new CallFuture();
        final AsyncTransport transport;
        try {
            transport = AsyncTransport.of((SdkAsyncHttpClient) self, request, url, future);
        } catch (IOException | RuntimeException unreadable) {
            Bridge.hookFault("aws-sdk:async-request-body", unreadable);
            return null;
        }
        if (transport == null) {
            return null;
        }
        future.bind(transport);
        CompletableFuture<Object> governed;
        try {
            governed = governance.executeAsync(transport);
            if (governed == null) {
                throw new IllegalStateException("the governance returned no future");
            }
        } catch (Throwable fault) {
            Bridge.hookFault("aws-sdk:executeAsync", fault);
            if (transport.attemptsSent() == 0) {
                return CallOutcome.response(transport.executeUngoverned());
            }
            governed = new CompletableFuture<>();
            governed.completeExceptionally(
                    new IOException("Sluice failed after the request was sent; not sending it again", fault));
        }
        governed.whenComplete(new BiConsumer<Object, Throwable>() {
            @Override
            public void accept(Object response, Throwable failure) {
                Throwable f = unwrap(failure);
                if (f == null && !AsyncTransport.isAnswer(response)) {
                    Bridge.hookFault(
                            "aws-sdk:executeAsync", new IllegalStateException("the governance returned " + response));
                    f = new IOException("Sluice failed after the request was sent; not sending it again");
                }
                transport.deliver(response, f);
            }
        });
        return CallOutcome.response(future);
    }

    private static Throwable unwrap(Throwable failure) {
        while (failure instanceof CompletionException && failure.getCause() != null) {
            failure = failure.getCause();
        }
        return failure;
    }
}
