package dev.sluice.instrumentation.hc5.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hook;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.concurrent.CancellableDependency;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.nio.AsyncPushConsumer;
import org.apache.hc.core5.http.nio.AsyncRequestProducer;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.HandlerFactory;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * Entry of the hooked {@code doExecute} of one copy of HttpClient 5. Compiled against 5.2.3, the
 * oldest supported API; uses only what 5.3 to 5.6 still have. Returns {@code null} (the original
 * method runs) for everything Sluice does not govern and for a fault before an attempt was sent.
 */
public final class Hc5Hook implements Hook {

    private static final int ASYNC = 2;

    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        if (site == ASYNC) {
            return enterAsync(self, args);
        }
        if (args == null || args.length != 3 || !(args[1] instanceof ClassicHttpRequest)) {
            return null;
        }
        CloseableHttpClient client = (CloseableHttpClient) self;
        HttpHost target = (HttpHost) args[0];
        ClassicHttpRequest request = (ClassicHttpRequest) args[1];
        HttpContext context = (HttpContext) args[2];
        if (request instanceof CancellableDependency && ((CancellableDependency) request).isCancelled()) {
            return null; // HttpClient raises its own "request aborted"
        }
        String url = ClassicTransport.urlOf(target, request);
        Governance governance = Bridge.governance();
        if (url == null || !governance.governs(url)) {
            return null;
        }
        ClassicTransport transport;
        try {
            transport = ClassicTransport.of(client, target, request, context, url);
        } catch (IOException unreadable) {
            return CallOutcome.failure(unreadable); // sending it would have failed the same way
        }
        if (transport == null) {
            return null; // a body that cannot be read ahead: not governed
        }
        try {
            return CallOutcome.checked(
                    governance.execute(transport), CloseableHttpResponse.class, transport.attemptsSent());
        } catch (Throwable fault) {
            Bridge.hookFault("apache-httpclient5:execute", fault);
            if (transport.attemptsSent() == 0) {
                return transport.executeUngoverned(); // nothing left the JVM yet: send it once, ungoverned
            }
            transport.releaseUnclaimed();
            return CallOutcome.failure(
                    new IOException("Sluice failed after the request was sent; not sending it again", fault));
        } finally {
            transport.finish();
        }
    }

    /**
     * {@code doExecute(target, producer, consumer, pushHandlerFactory, context, callback)} of the
     * asynchronous client: never blocks (it may run on an I/O reactor thread). Governed when the
     * producer is repeatable (it can be read ahead without taking anything from it) and its head
     * names a host Sluice governs; the application gets a future at once, completed by Sluice.
     */
    @SuppressWarnings("unchecked")
    private static CallOutcome enterAsync(Object self, Object[] args) {
        if (args == null || args.length != 6 || !(args[1] instanceof AsyncRequestProducer) || args[2] == null) {
            return null;
        }
        CloseableHttpAsyncClient client = (CloseableHttpAsyncClient) self;
        HttpHost target = (HttpHost) args[0];
        AsyncRequestProducer producer = (AsyncRequestProducer) args[1];
        AsyncResponseConsumer<Object> consumer = (AsyncResponseConsumer<Object>) args[2];
        HandlerFactory<AsyncPushConsumer> push = (HandlerFactory<AsyncPushConsumer>) args[3];
        HttpContext context = (HttpContext) args[4];
        FutureCallback<Object> callback = (FutureCallback<Object>) args[5];
        if (!producer.isRepeatable()) {
            return null;
        }
        Governance governance = Bridge.governance();
        RequestCapture capture;
        String url;
        byte[] body;
        try {
            capture = RequestCapture.head(producer, context);
            url = capture == null ? null : ClassicTransport.urlOf(target, capture.request);
            if (url == null || !governance.governs(url)) {
                return null;
            }
            body = capture.body(producer);
            if (capture.entity != null && body == null) {
                return null; // a body not produced at once: not governed
            }
        } catch (Exception unreadable) {
            Bridge.hookFault("apache-httpclient5:async-request", unreadable);
            return null;
        }
        CallFuture future = new CallFuture(callback);
        AsyncTransport transport = new AsyncTransport(
                client,
                target,
                capture.request,
                url,
                body,
                capture.entity == null ? null : Hc5Headers.contentType(capture.entity.getContentType()),
                push,
                context,
                consumer,
                future);
        future.bind(transport);
        CompletableFuture<Object> governed;
        try {
            governed = governance.executeAsync(transport);
            if (governed == null) {
                throw new IllegalStateException("the governance returned no future");
            }
        } catch (Throwable fault) {
            Bridge.hookFault("apache-httpclient5:executeAsync", fault);
            if (transport.attemptsSent() == 0) {
                transport.finish();
                return CallOutcome.response(transport.executeUngoverned(callback));
            }
            governed = new CompletableFuture<>();
            governed.completeExceptionally(
                    new IOException("Sluice failed after the request was sent; not sending it again", fault));
        }
        governed.whenComplete((response, failure) -> {
            Throwable f = unwrap(failure);
            if (f == null && !AsyncTransport.isAnswer(response)) {
                Bridge.hookFault(
                        "apache-httpclient5:executeAsync",
                        new IllegalStateException("the governance returned " + response));
                f = new IOException("Sluice failed after the request was sent; not sending it again");
            }
            transport.deliver(response, f);
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
