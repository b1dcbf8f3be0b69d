package dev.sluice.instrumentation.hc5.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.bootstrap.RetryLayers;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.impl.BasicEntityDetails;
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.http.message.BasicHttpResponse;
import org.apache.hc.core5.http.nio.AsyncPushConsumer;
import org.apache.hc.core5.http.nio.AsyncResponseConsumer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.nio.HandlerFactory;
import org.apache.hc.core5.http.nio.entity.AsyncEntityProducers;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * One logical asynchronous HttpClient 5 call offered to the governor. Admission happens before
 * anything is handed to the client, so a call waiting for room never holds a connection or an I/O
 * reactor thread; each attempt is a fresh {@code BasicRequestProducer} (the application's head
 * minus {@code X-Sluice-*}, the body read once) sent through the application's client with an
 * {@link AttemptConsumer}, under the bridge's dispatch guard. The application's consumer sees
 * only the final answer; its future ({@link CallFuture}) completes with what that consumer makes
 * of it.
 */
final class AsyncTransport implements HttpTransport {

    /** Where completions that start on Sluice's own threads (a retry's timer) run the application's consumer. */
    private static final ExecutorService CALLBACKS =
            new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<Runnable>(), r -> {
                Thread t = new Thread(r, "sluice-hc5-async-callback");
                t.setDaemon(true);
                return t;
            });

    private final CloseableHttpAsyncClient client;
    private final HttpHost target;
    private final HttpRequest request;
    private final String url;
    private final byte[] body;
    private final ContentType contentType;
    private final HandlerFactory<AsyncPushConsumer> pushHandlerFactory;
    private final HttpContext context;
    private final boolean ownContext;
    private final AsyncResponseConsumer<Object> application;
    private final CallFuture future;
    private final AtomicInteger attemptsSent = new AtomicInteger();
    private volatile boolean cancelled;
    private volatile Future<Object> inFlight;

    AsyncTransport(
            CloseableHttpAsyncClient client,
            HttpHost target,
            HttpRequest request,
            String url,
            byte[] body,
            ContentType contentType,
            HandlerFactory<AsyncPushConsumer> pushHandlerFactory,
            HttpContext context,
            AsyncResponseConsumer<Object> application,
            CallFuture future) {
        this.client = client;
        this.target = target;
        this.request = request;
        this.url = url;
        this.body = body;
        this.contentType = contentType;
        this.pushHandlerFactory = pushHandlerFactory;
        this.ownContext = context == null;
        this.context = context == null ? HttpClientContext.create() : context;
        this.application = application;
        this.future = future;
    }

    int attemptsSent() {
        return attemptsSent.get();
    }

    void cancel() {
        cancelled = true;
        Future<Object> attempt = inFlight;
        if (attempt != null) {
            attempt.cancel(true);
        }
    }

    /** The call is over: the application's context no longer marks attempts as Sluice's. */
    void finish() {
        if (!ownContext) {
            GovernedMark.callOver(context);
        }
    }

    private BasicRequestProducer newProducer() {
        BasicHttpRequest head = new BasicHttpRequest(request.getMethod(), request.getPath());
        head.setScheme(request.getScheme());
        head.setAuthority(request.getAuthority());
        if (request.getVersion() != null) {
            head.setVersion(request.getVersion());
        }
        for (Header header : request.getHeaders()) {
            if (!HttpTransport.isPrivateHeader(header.getName())) {
                head.addHeader(header);
            }
        }
        attemptsSent.incrementAndGet();
        return new BasicRequestProducer(head, body == null ? null : AsyncEntityProducers.create(body, contentType));
    }

    /** The call as the application made it, outside governance (the fallback when Sluice fails before sending). */
    Future<Object> executeUngoverned(FutureCallback<Object> callback) {
        BasicRequestProducer producer = newProducer();
        Bridge.beginDispatch();
        try {
            return client.execute(
                    target, producer, application, pushHandlerFactory, ownContext ? null : context, callback);
        } finally {
            Bridge.endDispatch();
        }
    }

    @Override
    public String library() {
        return "apache-httpclient5-async";
    }

    @Override
    public String method() {
        return request.getMethod().toUpperCase(Locale.ROOT);
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public Map<String, List<String>> requestHeaders() {
        return Hc5Headers.ofRequest(request, contentType);
    }

    @Override
    public byte[] requestBody() {
        return body;
    }

    @Override
    public long callerTimeoutNanos() {
        return 0;
    }

    @Override
    public boolean isCancelled() {
        return cancelled || future.isCancelled();
    }

    @Override
    public Object send(BodyObserver observer) throws Exception {
        // the asynchronous client is only ever governed through sendAsync; a blocking form for completeness,
        // which fails as the attempt did (an IOException the governance classifies, not its wrapper)
        try {
            return sendAsync(observer).get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof Exception ? (Exception) cause : e;
        }
    }

    @Override
    public CompletableFuture<Object> sendAsync(BodyObserver observer) {
        CompletableFuture<Object> answer = new CompletableFuture<>();
        AttemptConsumer consumer = new AttemptConsumer(observer, answer);
        try {
            BasicRequestProducer producer = newProducer();
            GovernedMark.beforeAttempt(context);
            Future<Object> attempt;
            Bridge.beginDispatch();
            try {
                attempt = client.execute(
                        target, producer, consumer, pushHandlerFactory, context, new FutureCallback<Object>() {
                            @Override
                            public void completed(Object result) {}

                            @Override
                            public void failed(Exception e) {
                                answer.completeExceptionally(e);
                            }

                            @Override
                            public void cancelled() {
                                answer.completeExceptionally(new InterruptedIOException("attempt cancelled"));
                            }
                        });
            } finally {
                Bridge.endDispatch();
            }
            inFlight = attempt;
            if (isCancelled()) {
                attempt.cancel(true);
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
        return asAnswer(response).head.getCode();
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        return Hc5Headers.of(asAnswer(response).head);
    }

    @Override
    public byte[] errorBody(Object response) {
        byte[] bytes = asAnswer(response).body;
        return bytes == null ? new byte[0] : bytes;
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        AsyncAnswer answer = asAnswer(response);
        if (setHeaders != null) {
            for (Map.Entry<String, String> header : setHeaders.entrySet()) {
                answer.head.setHeader(header.getKey(), header.getValue());
            }
        }
        return answer;
    }

    @Override
    public void discard(Object response) {
        if (asAnswer(response).relay != null) {
            Future<Object> attempt = inFlight;
            if (attempt != null) {
                attempt.cancel(true); // a streaming 2xx nobody will read
            }
        }
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] bytes) {
        BasicHttpResponse head = new BasicHttpResponse(status);
        if (headers != null) {
            for (Map.Entry<String, List<String>> header : headers.entrySet()) {
                for (String value : header.getValue()) {
                    head.addHeader(header.getKey(), value);
                }
            }
        }
        return new AsyncAnswer(head, bytes == null ? new byte[0] : bytes, null);
    }

    @Override
    public Executor callbackExecutor() {
        return CALLBACKS;
    }

    /** Hands the call's outcome to the application: its consumer and callback, as HttpClient would. */
    void deliver(Object response, Throwable failure) {
        finish();
        try {
            if (failure != null) {
                Exception e = failure instanceof Exception ? (Exception) failure : new IOException(failure);
                RetryLayers.decided(e);
                application.failed(e);
                application.releaseResources();
                future.failed(e);
                return;
            }
            AsyncAnswer answer = asAnswer(response);
            if (answer.relay != null) {
                answer.relay.attach(application, callback());
                return;
            }
            byte[] bytes = answer.body == null ? new byte[0] : answer.body;
            Header type = answer.head.getFirstHeader("Content-Type");
            application.consumeResponse(
                    answer.head,
                    bytes.length == 0
                            ? null
                            : new BasicEntityDetails(
                                    bytes.length, type == null ? null : Hc5Headers.contentType(type.getValue())),
                    context,
                    callback());
            if (bytes.length > 0) {
                application.updateCapacity(new CapacityChannel() {
                    @Override
                    public void update(int increment) {}
                });
                application.consume(ByteBuffer.wrap(bytes));
                application.streamEnd(null);
            }
            application.releaseResources();
        } catch (Exception e) {
            application.failed(e);
            future.failed(e);
        }
    }

    private FutureCallback<Object> callback() {
        return new FutureCallback<Object>() {
            @Override
            public void completed(Object result) {
                future.completed(result);
            }

            @Override
            public void failed(Exception e) {
                future.failed(e);
            }

            @Override
            public void cancelled() {
                future.cancel();
            }
        };
    }

    /** The response head type of the asynchronous API, for the hook's checks. */
    static boolean isAnswer(Object response) {
        return response instanceof AsyncAnswer && ((AsyncAnswer) response).head instanceof HttpResponse;
    }
}
