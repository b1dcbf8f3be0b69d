package dev.sluice.instrumentation.okhttp.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hook;
import dev.sluice.bootstrap.RetryLayers;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.ref.WeakReference;
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
    private final Map<OkHttpClient, OkHttpClient> withoutConnectionRetry =
            Collections.synchronizedMap(new WeakHashMap<>());
    /**
     * The last client asked about and its twin: an application mostly calls through one client,
     * which then skips the synchronized map's lock and look-up on every call.
     */
    private volatile Twin lastTwin;

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
        Twin last = lastTwin;
        if (last != null && last.client.get() == client) {
            return last.twin;
        }
        OkHttpClient twin = withoutConnectionRetry.get(client);
        if (twin == null) {
            twin = client.newBuilder().retryOnConnectionFailure(false).build();
            withoutConnectionRetry.put(client, twin);
        }
        lastTwin = new Twin(client, twin);
        return twin;
    }

    /**
     * A client, held weakly as in the map, and its twin (kept until another client is asked
     * about, with the pool it shares: one client's worth at most).
     */
    private static final class Twin {
        final WeakReference<OkHttpClient> client;
        final OkHttpClient twin;

        Twin(OkHttpClient client, OkHttpClient twin) {
            this.client = new WeakReference<>(client);
            this.twin = twin;
        }
    }

    private CallOutcome execute(Governance governance, OkHttpTransport transport, Call call) {
        inFlight.put(call, transport);
        try {
            return checked(governance.execute(transport), transport);
        } catch (Throwable fault) {
            Bridge.hookFault("okhttp:execute", fault);
            if (transport.attemptsSent() == 0) {
                return transport.executeUngoverned(); // nothing left the JVM yet: send it once, ungoverned
            }
            transport.releaseUnclaimed();
            return CallOutcome.failure(
                    new IOException("Sluice failed after the request was sent; not sending it again", fault));
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
            if (outcome == null) {
                throw new IllegalStateException("the governance returned no future");
            }
        } catch (Throwable fault) {
            outcome = afterAsyncFault(transport, call, callback, fault);
            if (outcome == null) {
                return CallOutcome.response(Boolean.TRUE);
            }
        }
        outcome.whenComplete((response, failure) -> {
            CallOutcome checked;
            try {
                checked = checked(
                        failure != null ? CallOutcome.failure(unwrap(failure)) : CallOutcome.response(response),
                        transport);
            } catch (Throwable fault) {
                CompletableFuture<Object> failed = afterAsyncFault(transport, call, callback, fault);
                if (failed != null) {
                    failed.whenComplete((r, f) -> deliver(transport, call, callback, r, f));
                }
                return;
            }
            deliver(transport, call, callback, checked.response(), checked.failure());
        });
        return CallOutcome.response(Boolean.TRUE);
    }

    /**
     * A fault inside Sluice on an enqueued call: counted; when nothing was sent yet the call goes
     * out once, ungoverned, still reachable by {@code cancel()} (returns null: the callback is the
     * ungoverned call's); otherwise the future of the failure to deliver.
     */
    private CompletableFuture<Object> afterAsyncFault(
            OkHttpTransport transport, Call call, Callback callback, Throwable fault) {
        Bridge.hookFault("okhttp:executeAsync", fault);
        if (transport.attemptsSent() == 0) {
            inFlight.put(call, transport);
            transport.enqueueUngoverned(new Callback() {
                @Override
                public void onFailure(Call c, IOException e) {
                    inFlight.remove(call);
                    callback.onFailure(c, e);
                }

                @Override
                public void onResponse(Call c, Response r) throws IOException {
                    inFlight.remove(call);
                    callback.onResponse(c, r);
                }
            });
            return null;
        }
        inFlight.remove(call);
        transport.releaseUnclaimed();
        CompletableFuture<Object> failed = new CompletableFuture<>();
        failed.completeExceptionally(
                new IOException("Sluice failed after the request was sent; not sending it again", fault));
        return failed;
    }

    /** The governance's outcome if a caller of the library can get it (see {@link CallOutcome#checked}). */
    static CallOutcome checked(CallOutcome outcome, OkHttpTransport transport) {
        return CallOutcome.checked(outcome, Response.class, transport.attemptsSent());
    }

    private static Throwable unwrap(Throwable failure) {
        while (failure instanceof CompletionException && failure.getCause() != null) {
            failure = failure.getCause();
        }
        return failure;
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
        failure = unwrap(failure);
        return failure instanceof IOException ? (IOException) failure : new IOException(failure);
    }
}
