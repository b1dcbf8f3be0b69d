package dev.sluice.instrumentation.jdkhttp.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hook;
import dev.sluice.bootstrap.RetryLayers;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Entry of the hooked {@code HttpClient} methods: decides whether an exchange is governed and, if
 * so, runs it through the governance with a {@link JdkHttpTransport}. Returns {@code null} (the
 * original method runs) for everything Sluice does not govern and for any fault that happens
 * before an attempt was sent.
 */
public final class JdkHttpHook implements Hook {

    private static final int SEND = 1;
    private static final int SEND_ASYNC = 2;

    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        HttpClient client = (HttpClient) self;
        HttpRequest request = (HttpRequest) args[0];
        @SuppressWarnings("unchecked")
        HttpResponse.BodyHandler<Object> handler = (HttpResponse.BodyHandler<Object>) args[1];
        if (request == null || handler == null) {
            return null; // let the client raise its own NullPointerException
        }
        Governance governance = Bridge.governance();
        if (!governance.governs(request.uri().toString())) {
            return null;
        }
        @SuppressWarnings("unchecked")
        HttpResponse.PushPromiseHandler<Object> push =
                args.length > 2 ? (HttpResponse.PushPromiseHandler<Object>) args[2] : null;
        JdkHttpTransport transport = new JdkHttpTransport(client, request, handler, push);
        return site == SEND_ASYNC ? sendAsync(governance, transport) : send(governance, transport);
    }

    private static CallOutcome send(Governance governance, JdkHttpTransport transport) {
        try {
            transport.collectBody().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CallOutcome.failure(e);
        } catch (ExecutionException e) {
            Bridge.hookFault("jdk-http-client:request-body", e.getCause());
            return null;
        }
        try {
            return checked(governance.execute(transport), transport);
        } catch (Throwable fault) {
            Bridge.hookFault("jdk-http-client:execute", fault);
            if (transport.attemptsSent() == 0) {
                return transport.sendUngovernedSync(); // nothing left the JVM yet: send it once, ungoverned
            }
            transport.releaseUnclaimed();
            return CallOutcome.failure(
                    new IOException("Sluice failed after the request was sent; not sending it again", fault));
        }
    }

    private static CallOutcome sendAsync(Governance governance, JdkHttpTransport transport) {
        if (RetryLayers.ownsRetries()) {
            // Sluice decides this call's retries: a retry loop on the caller's thread that blocks on the
            // future (Spring's RestClient on the JDK client sends async and waits) must not retry it.
            // Counted here, on the caller's thread: the governance itself runs once the body is read,
            // often on another thread.
            RetryLayers.governedOnThisThread();
        }
        CompletableFuture<Object> result = new CompletableFuture<>();
        transport.bindCaller(result);
        transport.collectBody().whenComplete((bytes, bodyFailure) -> {
            CompletableFuture<Object> governed;
            if (bodyFailure != null) {
                Bridge.hookFault("jdk-http-client:request-body", bodyFailure);
                governed = transport.sendUngoverned();
            } else {
                try {
                    governed = governance.executeAsync(transport);
                    if (governed == null) {
                        throw new IllegalStateException("the governance returned no future");
                    }
                } catch (Throwable fault) {
                    Bridge.hookFault("jdk-http-client:executeAsync", fault);
                    if (transport.attemptsSent() == 0) {
                        governed = transport.sendUngoverned();
                    } else {
                        transport.releaseUnclaimed();
                        governed = failed(new IOException(
                                "Sluice failed after the request was sent; not sending it again", fault));
                    }
                }
            }
            governed.whenComplete((response, failure) -> {
                CallOutcome outcome;
                try {
                    outcome = checked(
                            failure != null ? CallOutcome.failure(unwrap(failure)) : CallOutcome.response(response),
                            transport);
                } catch (Throwable fault) {
                    Bridge.hookFault("jdk-http-client:executeAsync", fault);
                    if (transport.attemptsSent() == 0) {
                        transport.sendUngoverned().whenComplete((r, f) -> complete(result, r, f, transport));
                        return;
                    }
                    transport.releaseUnclaimed();
                    outcome = CallOutcome.failure(
                            new IOException("Sluice failed after the request was sent; not sending it again", fault));
                }
                complete(result, outcome.response(), outcome.failure(), transport);
            });
        });
        return CallOutcome.response(result);
    }

    private static void complete(
            CompletableFuture<Object> result, Object response, Throwable failure, JdkHttpTransport transport) {
        if (failure != null) {
            result.completeExceptionally(unwrap(failure));
        } else if (!result.complete(response)) {
            transport.discard(response); // the caller cancelled as it came: nobody will read or close it
        }
    }

    /** The governance's outcome if a caller of the library can get it (see {@link CallOutcome#checked}). */
    static CallOutcome checked(CallOutcome outcome, JdkHttpTransport transport) {
        return CallOutcome.checked(outcome, HttpResponse.class, transport.attemptsSent());
    }

    static Throwable unwrap(Throwable failure) {
        while (failure instanceof CompletionException && failure.getCause() != null) {
            failure = failure.getCause();
        }
        return failure;
    }

    private static CompletableFuture<Object> failed(Throwable failure) {
        CompletableFuture<Object> future = new CompletableFuture<>();
        future.completeExceptionally(failure);
        return future;
    }
}
