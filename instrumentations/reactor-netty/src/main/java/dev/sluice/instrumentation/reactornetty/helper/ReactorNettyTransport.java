package dev.sluice.instrumentation.reactornetty.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.bootstrap.RetryLayers;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * One logical Reactor Netty call offered to the governor. Each attempt subscribes the
 * application's own request again ({@code responseConnection} on its finalizer, under the bridge's
 * dispatch guard so the hook lets it through), so its body function, headers, connection pool,
 * event loops and codecs all apply per attempt. An attempt's future completes with an
 * {@link Answer} once the status and headers are in (a non-2xx body read whole first); nothing in
 * it blocks: completion happens on the connection's event loop.
 */
final class ReactorNettyTransport implements HttpTransport {

    /** The layer's name in Sluice's retry-layer counters. */
    static final String CONNECTION_RETRY_LAYER = "reactor-netty-retry";

    /**
     * Where completions that originate on Sluice's threads (a permit granted by the governor, a
     * retry timer, a local rejection) continue: Reactor's parallel scheduler, the non-blocking
     * workers an event loop would otherwise have run them on. Completions already on a
     * non-blocking thread (a Netty event loop that delivered the response) continue in place, as
     * without Sluice. Either way the application's operators never run on a Sluice thread.
     */
    private static final Executor CALLBACKS = new Executor() {
        @Override
        public void execute(Runnable task) {
            if (Schedulers.isInNonBlockingThread()) {
                task.run();
            } else {
                Schedulers.parallel().schedule(task);
            }
        }
    };

    private final HttpClient finalizer;
    private final String method;
    private final String url;
    private volatile RequestCapture.Captured captured;
    /** The subscriber's context, carried to each attempt (tracing, the application's own keys). */
    private volatile ContextView context = Context.empty();

    private final AtomicInteger attemptsSent = new AtomicInteger();
    private volatile boolean cancelled;

    ReactorNettyTransport(HttpClient finalizer, String method, String url) {
        this.finalizer = finalizer;
        this.method = method;
        this.url = url;
    }

    void captured(RequestCapture.Captured request) {
        this.captured = request;
    }

    void context(ContextView subscriberContext) {
        this.context = subscriberContext;
    }

    int attemptsSent() {
        return attemptsSent.get();
    }

    void cancel() {
        cancelled = true;
    }

    @Override
    public String library() {
        return "reactor-netty";
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public Map<String, List<String>> requestHeaders() {
        RequestCapture.Captured c = captured;
        return c == null ? Collections.<String, List<String>>emptyMap() : c.headers;
    }

    @Override
    public byte[] requestBody() {
        RequestCapture.Captured c = captured;
        return c == null ? null : c.body;
    }

    @Override
    public long callerTimeoutNanos() {
        return 0;
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * The receiver of one attempt: the application's finalizer, minus Sluice's private
     * {@code X-Sluice-*} headers (dropped as the request is written, {@link PrivateHeaders}) and,
     * while Sluice owns retries, minus Reactor Netty's own retry of a request whose pooled
     * connection closed before it was sent.
     */
    private HttpClient.ResponseReceiver<?> attemptReceiver() {
        HttpClient client = finalizer.doOnRequest((request, connection) -> PrivateHeaders.install(connection));
        if (!client.configuration().isRetryDisabled() && RetryLayers.ownsRetries()) {
            client = client.disableRetry(true);
            RetryLayers.passed(CONNECTION_RETRY_LAYER);
        }
        // every configuration method of a finalizer duplicates it as a finalizer: still a receiver
        return (HttpClient.ResponseReceiver<?>) client;
    }

    @Override
    public Object send(BodyObserver observer) throws Exception {
        try {
            return sendAsync(observer).get();
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception ? (Exception) cause : e;
        }
    }

    @Override
    public CompletableFuture<Object> sendAsync(BodyObserver observer) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        attemptsSent.incrementAndGet();
        Mono<Answer> attempt;
        Bridge.beginDispatch();
        try {
            attempt = attemptReceiver()
                    .responseConnection((response, connection) -> Mono.just(new Answer(response, connection)))
                    .next()
                    .contextWrite(context);
        } catch (Throwable e) {
            result.completeExceptionally(e);
            return result;
        } finally {
            Bridge.endDispatch();
        }
        Disposable running = attempt.flatMap(a -> a.isSuccess() ? Mono.just(a.observed(observer)) : a.readWhole())
                .subscribe(
                        answer -> {
                            if (!result.complete(answer)) {
                                answer.discard(); // the call was cancelled as the answer came
                            }
                        },
                        result::completeExceptionally,
                        () -> result.completeExceptionally(
                                new IOException("the connection closed before a response came")));
        result.whenComplete((r, e) -> {
            if (result.isCancelled()) {
                running.dispose(); // aborts the exchange: a request still waiting for its answer
            }
        });
        return result;
    }

    private static Answer asAnswer(Object response) {
        return (Answer) response;
    }

    @Override
    public int status(Object response) {
        return asAnswer(response).status();
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        return asMap(asAnswer(response).response.responseHeaders());
    }

    static Map<String, List<String>> asMap(HttpHeaders headers) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, String>> it = headers.iteratorAsString(); it.hasNext(); ) {
            Map.Entry<String, String> h = it.next();
            map.computeIfAbsent(h.getKey(), n -> new ArrayList<>(1)).add(h.getValue());
        }
        return map;
    }

    @Override
    public byte[] errorBody(Object response) {
        byte[] bytes = asAnswer(response).buffered();
        return bytes == null ? new byte[0] : bytes;
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        Answer answer = asAnswer(response);
        if (setHeaders != null && !setHeaders.isEmpty()) {
            HttpHeaders headers = answer.response.responseHeaders();
            for (Map.Entry<String, String> h : setHeaders.entrySet()) {
                headers.set(h.getKey(), h.getValue());
            }
        }
        return answer;
    }

    @Override
    public void discard(Object response) {
        asAnswer(response).discard();
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] body) {
        HttpHeaders responseHeaders = new DefaultHttpHeaders();
        if (headers != null) {
            for (Map.Entry<String, List<String>> h : headers.entrySet()) {
                for (String value : h.getValue()) {
                    responseHeaders.add(h.getKey(), value);
                }
            }
        }
        if (body != null && !responseHeaders.contains("content-length")) {
            responseHeaders.set("content-length", String.valueOf(body.length));
        }
        HttpHeaders request = new DefaultHttpHeaders();
        for (Map.Entry<String, List<String>> h : requestHeaders().entrySet()) {
            request.add(h.getKey(), h.getValue());
        }
        return Answer.local(LocalResponse.of(status, responseHeaders, method, url, request), body);
    }

    @Override
    public Executor callbackExecutor() {
        return CALLBACKS;
    }
}
