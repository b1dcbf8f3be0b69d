package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.bootstrap.RetryLayers;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.async.SdkAsyncHttpResponseHandler;

/**
 * One logical call of an asynchronous AWS HTTP client ({@code SdkAsyncHttpClient}: Netty, CRT)
 * offered to the governor. The SDK gets a {@link CallFuture} at once; admission happens before
 * anything reaches the client, so a call waiting for room holds no connection and no event-loop
 * thread. Each attempt is the SDK's own signed request and content publisher (which gives every
 * subscriber the whole body) sent through the same client with an {@link AttemptHandler}, under
 * the bridge's dispatch guard; only unsigned {@code X-Sluice-*} headers are taken out. The SDK's
 * handler sees only the final answer.
 */
final class AsyncTransport implements HttpTransport {

    /** Where completions that start on Sluice's own threads (a retry's timer) run the SDK's handler. */
    private static final ExecutorService CALLBACKS = new ThreadPoolExecutor(
            0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<Runnable>(), new ThreadFactory() {
                @Override
                public Thread newThread(Runnable r) {
                    Thread t = new Thread(r, "sluice-aws-sdk-async-callback");
                    t.setDaemon(true);
                    return t;
                }
            });

    private final SdkAsyncHttpClient client;
    private final AsyncExecuteRequest original;
    private final SdkHttpRequest head;
    private final String url;
    private final byte[] body;
    private final SdkAsyncHttpResponseHandler application;
    private final CallFuture future;
    private final AtomicInteger attemptsSent = new AtomicInteger();
    private volatile boolean cancelled;
    private volatile AttemptHandler inFlight;

    private AsyncTransport(
            SdkAsyncHttpClient client,
            AsyncExecuteRequest original,
            SdkHttpRequest head,
            String url,
            byte[] body,
            CallFuture future) {
        this.client = client;
        this.original = original;
        this.head = head;
        this.url = url;
        this.body = body;
        this.application = original.responseHandler();
        this.future = future;
    }

    /**
     * The transport of this call, or null when its body cannot be read ahead: the SDK's own
     * operations hand the client their whole request ({@code SdkHttpFullRequest}, whose content
     * stream provider gives a new stream each time); a body streamed from the application is not.
     */
    static AsyncTransport of(SdkAsyncHttpClient client, AsyncExecuteRequest request, String url, CallFuture future)
            throws IOException {
        SdkHttpRequest requestHead = request.request();
        byte[] bytes = null;
        Optional<ContentStreamProvider> content = requestHead instanceof SdkHttpFullRequest
                ? ((SdkHttpFullRequest) requestHead).contentStreamProvider()
                : Optional.<ContentStreamProvider>empty();
        if (content.isPresent()) {
            try (InputStream in = content.get().newStream()) {
                bytes = SyncTransport.readAtMost(in, SyncTransport.MAX_BODY_BYTES);
            }
            if (bytes == null) {
                return null;
            }
        } else if (request.requestContentPublisher() != null
                && request.requestContentPublisher().contentLength().orElse(-1L) != 0) {
            return null; // a body only a publisher has: not read ahead, not governed
        }
        return new AsyncTransport(
                client, request, SignedHeaders.withoutPrivateHeaders(requestHead), url, bytes, future);
    }

    int attemptsSent() {
        return attemptsSent.get();
    }

    /** The SDK stopped the call: no further attempt starts, the one in flight is cancelled. */
    void cancel() {
        cancelled = true;
        AttemptHandler attempt = inFlight;
        if (attempt != null) {
            attempt.cancel();
        }
    }

    /** The call as the SDK made it, outside governance (the fallback when Sluice fails before sending). */
    CompletableFuture<Void> executeUngoverned() {
        Bridge.beginDispatch();
        try {
            return client.execute(original);
        } finally {
            Bridge.endDispatch();
        }
    }

    @Override
    public String library() {
        return "aws-sdk-v2-async";
    }

    @Override
    public String method() {
        return head.method().name().toUpperCase(Locale.ROOT);
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public Map<String, List<String>> requestHeaders() {
        return original.request().headers();
    }

    @Override
    public byte[] requestBody() {
        return body;
    }

    @Override
    public long callerTimeoutNanos() {
        return 0; // the SDK's timeouts complete its future exceptionally (cancel()), they are not told ahead
    }

    @Override
    public boolean isCancelled() {
        return cancelled || future.isDone();
    }

    @Override
    public Object send(BodyObserver observer) throws Exception {
        // the asynchronous client is only ever governed through sendAsync; a blocking form for completeness,
        // failing as a blocking send must: with the client's own failure (an IOException), not a wrapper
        try {
            return sendAsync(observer).get();
        } catch (ExecutionException e) {
            Throwable failure = e.getCause();
            throw failure instanceof Exception ? (Exception) failure : e;
        }
    }

    @Override
    public CompletableFuture<Object> sendAsync(BodyObserver observer) {
        CompletableFuture<Object> answer = new CompletableFuture<>();
        AttemptHandler handler = new AttemptHandler(observer, answer);
        try {
            AsyncExecuteRequest.Builder attempt = AsyncExecuteRequest.builder()
                    .request(head)
                    .requestContentPublisher(original.requestContentPublisher())
                    .responseHandler(handler)
                    .fullDuplex(original.fullDuplex())
                    .httpExecutionAttributes(original.httpExecutionAttributes());
            if (original.metricCollector().isPresent()) {
                attempt.metricCollector(original.metricCollector().get());
            }
            inFlight = handler;
            CompletableFuture<Void> exchange;
            Bridge.beginDispatch();
            try {
                exchange = client.execute(attempt.build());
            } finally {
                Bridge.endDispatch();
            }
            attemptsSent.incrementAndGet();
            handler.exchange = exchange;
            exchange.whenComplete(handler);
            if (isCancelled()) {
                exchange.cancel(true);
            }
        } catch (Throwable e) {
            answer.completeExceptionally(e);
        }
        return answer;
    }

    private static AsyncAnswer asAnswer(Object response) {
        return (AsyncAnswer) response;
    }

    @Override
    public int status(Object response) {
        return asAnswer(response).head.statusCode();
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        return asAnswer(response).head.headers();
    }

    @Override
    public byte[] errorBody(Object response) {
        byte[] bytes = asAnswer(response).body;
        return bytes == null ? new byte[0] : bytes;
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        AsyncAnswer answer = asAnswer(response);
        return setHeaders == null || setHeaders.isEmpty()
                ? answer
                : answer.withHead(SyncTransport.withHeaders(answer.head, setHeaders));
    }

    @Override
    public void discard(Object response) {
        AsyncAnswer answer = asAnswer(response);
        if (answer.attempt != null) {
            answer.stream.discard(); // a streaming 2xx nobody will read: its observer hears the close
            answer.attempt.cancel();
        }
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] bytes) {
        return new AsyncAnswer(SyncTransport.localHead(status, headers), bytes == null ? new byte[0] : bytes);
    }

    @Override
    public Executor callbackExecutor() {
        return CALLBACKS;
    }

    /** Hands the call's outcome to the SDK: its handler, then its future, as the client would. */
    void deliver(Object response, Throwable failure) {
        if (failure != null) {
            RetryLayers.decided(failure);
            try {
                application.onError(failure);
            } finally {
                future.end(failure);
            }
            return;
        }
        AsyncAnswer answer = asAnswer(response);
        try {
            application.onHeaders(answer.head);
            if (answer.stream != null) {
                application.onStream(answer.stream);
                answer.attempt.relay(application, future);
                return;
            }
            application.onStream(new BufferedPublisher(answer.body == null ? new byte[0] : answer.body));
            future.end(null);
        } catch (Throwable e) {
            try {
                if (answer.stream != null) {
                    discard(answer); // the SDK's call ends here: nobody reads on, the exchange stops
                }
                application.onError(e);
            } finally {
                future.end(e);
            }
        }
    }

    /** The response head type of the asynchronous API, for the hook's checks. */
    static boolean isAnswer(Object response) {
        return response instanceof AsyncAnswer && ((AsyncAnswer) response).head != null;
    }
}
