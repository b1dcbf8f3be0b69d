package dev.sluice.instrumentation.okhttp.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hook;
import dev.sluice.bootstrap.RetryLayers;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Response;

/**
 * Entry of the hooked {@code RealCall} methods of one copy of OkHttp. Compiled against OkHttp
 * 3.14.9, the oldest supported API; uses only what 4.x and 5.x still have.
 */
public final class OkHttpHook implements Hook {

    private static final int EXECUTE = 1;
    private static final int ENQUEUE = 2;
    private static final int CANCEL = 3;

    /** Governed calls in flight, so {@code cancel()} reaches their attempt. */
    private final Map<Call, OkHttpTransport> inFlight = new ConcurrentHashMap<>();
    /** Calls Sluice ran, weakly: the original call object never runs, yet must refuse a second run. */
    private final Map<Call, Boolean> claimed = Collections.synchronizedMap(new WeakHashMap<>());
    /**
     * Each application client's twin without {@code retryOnConnectionFailure}, weakly keyed (the
     * twin shares the client's pool and dispatcher but does not reference the client itself).
     */
    private final Map<OkHttpClient, OkHttpClient> withoutConnectionRetry = Collections.synchronizedMap(new WeakHashMap<>());

    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        Call call = (Call) self;
        if (site == CANCEL) {
            OkHttpTransport transport = inFlight.get(call);
            if (transport != null) {
                transport.cancel();
            }
            return null;
        }
        OkHttpClient client = (OkHttpClient) args[0];
        if (client == null || Boolean.TRUE.equals(args[2])) {
            return null; // a WebSocket upgrade (e.g. a realtime API) must keep its own call
        }
        Governance governance = Bridge.governance();
        if (call.isCanceled() || !governance.governs(call.request().url().toString())) {
            return null;
        }
        if (claimed.put(call, Boolean.TRUE) != null) {
            return CallOutcome.failure(new IllegalStateException("Already Executed"));
        }
        OkHttpTransport transport = OkHttpTransport.of(client, attemptClient(client), call);
        if (transport == null) {
            claimed.remove(call);
            return null; // a duplex body: it cannot be read ahead, so it is not governed
        }
        return site == ENQUEUE
                ? enqueue(governance, transport, call, (Callback) args[1])
                : execute(governance, transport, call);
    }

    /**
     * The client Sluice's attempts go through. While Sluice owns retries, OkHttp's own connection
     * retries ({@code retryOnConnectionFailure}, on by default; it may resend a request whose
     * connection broke after it went out) are one retry layer too many: attempts use a twin of the
     * client with them off, which keeps its pool, dispatcher, interceptors and listeners.
     */
    private OkHttpClient attemptClient(OkHttpClient client) {
        if (!client.retryOnConnectionFailure() || !RetryLayers.ownsRetries()) {
            return client;
        }
        OkHttpClient twin = withoutConnectionRetry.get(client);
        if (twin == null) {
            twin = client.newBuilder().retryOnConnectionFailure(false).build();
            withoutConnectionRetry.put(client, twin);
        }
        return twin;
    }

    private CallOutcome execute(Governance governance, OkHttpTransport transport, Call call) {
        inFlight.put(call, transport);
        try {
            return governance.execute(transport);
        } catch (Throwable fault) {
            Bridge.hookFault("okhttp:execute", fault);
            if (transport.attemptsSent() == 0) {
                return transport.executeUngoverned(); // nothing left the JVM yet: send it once, ungoverned
            }
            transport.releaseUnclaimed();
            return CallOutcome.failure(new IOException("Sluice failed after the request was sent; not sending it again", fault));
        } finally {
            inFlight.remove(call);
        }
    }

    private CallOutcome enqueue(Governance governance, OkHttpTransport transport, Call call, Callback callback) {
        if (callback == null) {
            claimed.remove(call);
            return null;
        }
        CompletableFuture<Object> outcome;
        inFlight.put(call, transport);
        try {
            outcome = governance.executeAsync(transport);
        } catch (Throwable fault) {
            Bridge.hookFault("okhttp:executeAsync", fault);
            inFlight.remove(call);
            if (transport.attemptsSent() == 0) {
                transport.enqueueUngoverned(callback);
                return CallOutcome.response(Boolean.TRUE);
            }
            transport.releaseUnclaimed();
            outcome = new CompletableFuture<>();
            outcome.completeExceptionally(new IOException("Sluice failed after the request was sent; not sending it again", fault));
        }
        outcome.whenComplete((response, failure) -> deliver(transport, call, callback, response, failure));
        return CallOutcome.response(Boolean.TRUE);
    }

    /** Hands the outcome to the application's callback on the dispatcher's executor, as OkHttp would. */
    private void deliver(OkHttpTransport transport, Call call, Callback callback, Object response, Throwable failure) {
        inFlight.remove(call);
        Runnable delivery = () -> {
            if (failure == null) {
                try {
                    callback.onResponse(call, (Response) response);
                } catch (IOException e) {
                    // OkHttp logs and drops an IOException thrown by onResponse; so does Sluice
                }
            } else {
                callback.onFailure(call, asIOException(failure));
            }
        };
        ExecutorService executor = transport.dispatcherExecutor();
        try {
            executor.execute(delivery);
        } catch (RejectedExecutionException rejected) {
            if (response instanceof Response) {
                ((Response) response).close();
            }
            InterruptedIOException io = new InterruptedIOException("executor rejected");
            io.initCause(rejected);
            callback.onFailure(call, io);
        }
    }

    private static IOException asIOException(Throwable failure) {
        while (failure instanceof CompletionException && failure.getCause() != null) {
            failure = failure.getCause();
        }
        return failure instanceof IOException ? (IOException) failure : new IOException(failure);
    }
}
