package dev.sluice.instrumentation.jdkhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.HttpTransport;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;

/**
 * One logical {@code HttpClient} exchange offered to the governor.
 *
 * <p>The request body is read once from its publisher and replayed per attempt; {@code X-Sluice-*}
 * headers are dropped by rebuilding the request. Each attempt goes through the same client (so
 * its executor, proxy, authenticator, SSL and HTTP/2 settings apply) under the bridge's dispatch
 * guard, with a handler that gives a 2xx body to the application's own subscriber (tapped for the
 * governor) and buffers any other body so the governor can read it and decide.
 */
final class JdkHttpTransport implements HttpTransport {

    /** How long handing back waits for a replayed body whose subscriber completes asynchronously. */
    private static final long REPLAY_WAIT_SECONDS = 30;

    private final HttpClient client;
    private final HttpRequest request;
    private final HttpResponse.BodyHandler<Object> handler;
    private final HttpResponse.PushPromiseHandler<Object> pushHandler;
    private final Map<HttpResponse<?>, byte[]> errorBodies = new ConcurrentHashMap<>();
    private final AtomicInteger attemptsSent = new AtomicInteger();
    private volatile HttpRequest stripped;
    private volatile byte[] body;
    private volatile boolean cancelled;
    private volatile CompletableFuture<?> inFlight;
    /** The last attempt's response until it is handed back or discarded: released if Sluice fails holding it. */
    private volatile HttpResponse<?> unclaimed;

    JdkHttpTransport(
            HttpClient client,
            HttpRequest request,
            HttpResponse.BodyHandler<Object> handler,
            HttpResponse.PushPromiseHandler<Object> pushHandler) {
        this.client = client;
        this.request = request;
        this.handler = handler;
        this.pushHandler = pushHandler;
    }

    /** Reads the request body once; completes when every attempt can be built. */
    CompletableFuture<byte[]> collectBody() {
        Optional<HttpRequest.BodyPublisher> publisher = request.bodyPublisher();
        byte[] inMemory = publisher.isPresent() ? InMemoryBodies.of(publisher.get()) : null;
        if (inMemory != null) {
            return CompletableFuture.completedFuture(keep(inMemory, true));
        }
        long length = publisher.isPresent() ? publisher.get().contentLength() : 0;
        boolean jdkInMemory = publisher.isPresent() && BodyCollector.isJdkInMemory(publisher.get());
        BodyCollector collector = new BodyCollector(length, jdkInMemory);
        if (publisher.isPresent() && length != 0) {
            publisher.get().subscribe(collector);
        } else {
            collector.result.complete(publisher.isPresent() ? new byte[0] : null);
        }
        return collector.result.thenApply(bytes -> keep(bytes, jdkInMemory));
    }

    /**
     * Keeps the body read for every attempt. The request goes as it came when its publisher gives
     * every subscription the same bytes again (the JDK's in-memory ones) and carries none of
     * Sluice's private headers; else it is rebuilt around the bytes.
     */
    private byte[] keep(byte[] bytes, boolean replayable) {
        body = bytes;
        stripped = replayable && !hasPrivateHeader(request) ? request : strip(request, bytes);
        return bytes;
    }

    /** Links the future given to the application: cancelling it cancels the call. */
    void bindCaller(CompletableFuture<Object> callerFuture) {
        callerFuture.whenComplete((response, failure) -> {
            if (callerFuture.isCancelled()) {
                cancelled = true;
                CompletableFuture<?> attempt = inFlight;
                if (attempt != null) {
                    attempt.cancel(true);
                }
            }
        });
    }

    /** The request each attempt sends, once {@link #collectBody()} completed. */
    HttpRequest outgoing() {
        return stripped;
    }

    int attemptsSent() {
        return attemptsSent.get();
    }

    /**
     * The exchange as the application asked for it, outside governance (the fallback when Sluice
     * fails before sending anything); only the private {@code X-Sluice-*} headers are dropped.
     */
    CompletableFuture<Object> sendUngoverned() {
        HttpRequest outgoing = stripped != null ? stripped : request;
        Bridge.beginDispatch();
        try {
            @SuppressWarnings({"unchecked", "rawtypes"})
            CompletableFuture<Object> future = (CompletableFuture)
                    (pushHandler == null
                            ? client.sendAsync(outgoing, handler)
                            : client.sendAsync(outgoing, handler, pushHandler));
            return future;
        } finally {
            Bridge.endDispatch();
        }
    }

    /** Synchronous form of {@link #sendUngoverned()}; {@code null} lets the original method run. */
    CallOutcome sendUngovernedSync() {
        if (stripped == null) {
            return null;
        }
        Bridge.beginDispatch();
        try {
            return CallOutcome.response(client.send(stripped, handler));
        } catch (Exception e) {
            return CallOutcome.failure(e);
        } finally {
            Bridge.endDispatch();
        }
    }

    /**
     * Whether the application set one of Sluice's private headers. Without one, a request whose body
     * is one of the JDK's in-memory publishers (which give every subscription the whole body again)
     * is sent as it came, attempt after attempt, instead of being rebuilt, which costs the JDK's
     * validation of every header again on each call.
     */
    private static boolean hasPrivateHeader(HttpRequest request) {
        for (String name : request.headers().map().keySet()) {
            if (HttpTransport.isPrivateHeader(name)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean canReroute() {
        return true;
    }

    /**
     * Later attempts go to {@code url}: the request rebuilt from the application's, with these
     * headers replaced or removed and this body (else the one read ahead).
     */
    @Override
    public void reroute(String url, Map<String, String> setHeaders, byte[] newBody) {
        stripped = rebuild(request, java.net.URI.create(url), setHeaders, newBody != null ? newBody : body);
    }

    private static HttpRequest strip(HttpRequest original, byte[] bytes) {
        return rebuild(original, original.uri(), Collections.emptyMap(), bytes);
    }

    /**
     * The request sent to {@code uri} with {@code bytes} as its body: the original's headers less
     * Sluice's private ones and those named in {@code setHeaders} (lower case), which are set to
     * their values (a null value leaves the header out), and its timeout, version and expect-continue.
     */
    private static HttpRequest rebuild(
            HttpRequest original, java.net.URI uri, Map<String, String> setHeaders, byte[] bytes) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri);
        original.headers().map().forEach((name, values) -> {
            if (!HttpTransport.isPrivateHeader(name)
                    && (setHeaders.isEmpty() || !setHeaders.containsKey(name.toLowerCase(java.util.Locale.ROOT)))) {
                for (String value : values) {
                    builder.header(name, value);
                }
            }
        });
        for (Map.Entry<String, String> h : setHeaders.entrySet()) {
            if (h.getValue() != null) {
                builder.header(h.getKey(), h.getValue());
            }
        }
        builder.method(
                original.method(),
                bytes == null || bytes.length == 0
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(bytes));
        original.timeout().ifPresent(builder::timeout);
        original.version().ifPresent(builder::version);
        builder.expectContinue(original.expectContinue());
        return builder.build();
    }

    @Override
    public String library() {
        return "jdk-http-client";
    }

    @Override
    public String method() {
        return request.method();
    }

    @Override
    public String url() {
        return request.uri().toString();
    }

    @Override
    public Map<String, List<String>> requestHeaders() {
        return request.headers().map();
    }

    @Override
    public byte[] requestBody() {
        return body;
    }

    @Override
    public long callerTimeoutNanos() {
        return request.timeout().map(Duration::toNanos).orElse(0L);
    }

    @Override
    public boolean isCancelled() {
        return cancelled;
    }

    private HttpResponse.BodyHandler<Object> attemptHandler(BodyObserver observer) {
        return info -> {
            if (!isSuccess(info.statusCode())) {
                return cast(HttpResponse.BodySubscribers.ofByteArray());
            }
            // told first, so the body's end can read the usage off the caller's thread
            observer.onHeaders(info.headers().map());
            return TappedSubscriber.of(handler.apply(info), observer);
        };
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static HttpResponse.BodySubscriber<Object> cast(HttpResponse.BodySubscriber<?> subscriber) {
        return (HttpResponse.BodySubscriber) subscriber;
    }

    @Override
    public Object send(BodyObserver observer) throws Exception {
        HttpRequest attempt = stripped;
        attemptsSent.incrementAndGet();
        HttpResponse<Object> response;
        Bridge.beginDispatch();
        try {
            response = client.send(attempt, attemptHandler(observer));
        } finally {
            Bridge.endDispatch();
        }
        return settled(response);
    }

    @Override
    public CompletableFuture<Object> sendAsync(BodyObserver observer) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        CompletableFuture<HttpResponse<Object>> attempt;
        attemptsSent.incrementAndGet();
        Bridge.beginDispatch();
        try {
            attempt = pushHandler == null
                    ? client.sendAsync(stripped, attemptHandler(observer))
                    : client.sendAsync(stripped, attemptHandler(observer), pushHandler);
        } catch (Throwable failure) {
            result.completeExceptionally(failure);
            return result;
        } finally {
            Bridge.endDispatch();
        }
        inFlight = attempt;
        if (cancelled) {
            attempt.cancel(true);
        }
        attempt.whenComplete((response, failure) -> {
            if (failure != null) {
                result.completeExceptionally(JdkHttpHook.unwrap(failure));
            } else {
                result.complete(settled(response));
            }
        });
        return result;
    }

    /** Releases an attempt's response the governance neither handed back nor discarded (it failed holding it). */
    void releaseUnclaimed() {
        HttpResponse<?> response = unclaimed;
        if (response != null) {
            discard(response);
        }
    }

    private Object settled(HttpResponse<Object> response) {
        unclaimed = response;
        if (!isSuccess(response.statusCode())) {
            Object buffered = response.body();
            errorBodies.put(response, buffered instanceof byte[] ? (byte[]) buffered : new byte[0]);
        }
        return response;
    }

    private static boolean isSuccess(int status) {
        return status >= 200 && status < 300;
    }

    private static HttpResponse<?> asResponse(Object response) {
        return (HttpResponse<?>) response;
    }

    @Override
    public int status(Object response) {
        return asResponse(response).statusCode();
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        return asResponse(response).headers().map();
    }

    @Override
    public byte[] errorBody(Object response) {
        byte[] bytes = errorBodies.get(asResponse(response));
        return bytes == null ? new byte[0] : bytes;
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        HttpResponse<?> attempt = asResponse(response);
        unclaimed = null;
        HttpHeaders headers = withHeaders(attempt.headers(), setHeaders);
        byte[] buffered = errorBodies.get(attempt);
        Object body = buffered != null
                ? replay(attempt.statusCode(), headers, attempt.version(), buffered)
                : forCaller(attempt.body());
        @SuppressWarnings({"unchecked", "rawtypes"})
        Optional<HttpResponse<Object>> previous = (Optional) attempt.previousResponse();
        return new SluiceHttpResponse(
                attempt.statusCode(), request, headers, body, attempt.version(), attempt.sslSession(), previous);
    }

    /**
     * The body the application gets: a governed InputStream in a layer only the application holds,
     * so that dropping it unclosed can be noticed (see {@link CallerInputStream}).
     */
    private static Object forCaller(Object body) {
        return body instanceof ObservedInputStream ? new CallerInputStream((ObservedInputStream) body) : body;
    }

    @Override
    public void discard(Object response) {
        HttpResponse<?> attempt = asResponse(response);
        unclaimed = null;
        errorBodies.remove(attempt);
        Object body = attempt.body();
        if (body instanceof AutoCloseable) {
            try {
                ((AutoCloseable) body).close();
            } catch (Exception ignored) {
                // a body we drop may already be broken
            }
        }
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] body) {
        HttpHeaders all = HttpHeaders.of(headers == null ? Collections.emptyMap() : headers, (n, v) -> true);
        HttpClient.Version version = request.version().orElse(HttpClient.Version.HTTP_1_1);
        byte[] bytes = body == null ? new byte[0] : body;
        return new SluiceHttpResponse(
                status, request, all, replay(status, all, version, bytes), version, Optional.empty(), Optional.empty());
    }

    /** Runs buffered bytes through the application's own handler, as the client would have. */
    private Object replay(int status, HttpHeaders headers, HttpClient.Version version, byte[] bytes) {
        HttpResponse.ResponseInfo info = new HttpResponse.ResponseInfo() {
            @Override
            public int statusCode() {
                return status;
            }

            @Override
            public HttpHeaders headers() {
                return headers;
            }

            @Override
            public HttpClient.Version version() {
                return version;
            }
        };
        HttpResponse.BodySubscriber<Object> subscriber = handler.apply(info);
        ReplaySubscription.replay(subscriber, bytes);
        try {
            return subscriber.getBody().toCompletableFuture().get(REPLAY_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while replaying a buffered body", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the application's body handler did not take a buffered body", e);
        }
    }

    /**
     * The attempt's headers with Sluice's set over them. {@code HttpHeaders.of} copies and sorts
     * whatever it is given, so it is given the original lists as they are, in one plain map (the
     * original names are already unique case-insensitively; the few set ones replace theirs).
     */
    private static HttpHeaders withHeaders(HttpHeaders attempt, Map<String, String> set) {
        if (set == null || set.isEmpty()) {
            return attempt;
        }
        Map<String, List<String>> original = attempt.map();
        Map<String, List<String>> merged = new HashMap<>((original.size() + set.size()) * 2);
        for (Map.Entry<String, List<String>> header : original.entrySet()) {
            if (!containsIgnoringCase(set, header.getKey())) {
                merged.put(header.getKey(), header.getValue());
            }
        }
        for (Map.Entry<String, String> header : set.entrySet()) {
            merged.put(header.getKey(), Collections.singletonList(header.getValue()));
        }
        return HttpHeaders.of(merged, ALL_HEADERS);
    }

    private static final BiPredicate<String, String> ALL_HEADERS = (name, value) -> true;

    private static boolean containsIgnoringCase(Map<String, String> set, String name) {
        for (String key : set.keySet()) {
            if (key.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Executor callbackExecutor() {
        return client.executor().orElse(ForkJoinPool.commonPool());
    }
}
