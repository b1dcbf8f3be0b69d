package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.HttpTransport;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullResponse;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * One logical call of a synchronous AWS HTTP client ({@code SdkHttpClient}: Apache, Apache 5,
 * URLConnection, CRT) offered to the governor. Each attempt is the SDK's own signed request,
 * prepared again by the same client under the bridge's dispatch guard ({@code prepareRequest}
 * then {@code call}), with nothing changed but unsigned {@code X-Sluice-*} headers taken out:
 * every signed header stays as the SDK wrote it. The body is read once, ahead, from the request's
 * content stream provider, which gives a new stream for each attempt.
 */
final class SyncTransport implements HttpTransport {

    /** Bodies above this are not read ahead: such a call is not governed. */
    static final long MAX_BODY_BYTES = 64L << 20;

    private final SdkHttpClient client;
    /** What each attempt sends: the SDK's request without its unsigned private headers. */
    private final HttpExecuteRequest request;
    /** The request as the SDK made it, private headers and all: what the governance reads. */
    private final SdkHttpRequest asMade;

    private final String url;
    private final byte[] body;
    private final AtomicInteger attemptsSent = new AtomicInteger();
    private final Map<HttpExecuteResponse, byte[]> errorBodies = new ConcurrentHashMap<>();
    private volatile boolean aborted;
    private volatile ExecutableHttpRequest inFlight;
    /** The last attempt's response until it is handed back or discarded: released if Sluice fails holding it. */
    private volatile HttpExecuteResponse unclaimed;

    private SyncTransport(
            SdkHttpClient client, HttpExecuteRequest request, SdkHttpRequest asMade, String url, byte[] body) {
        this.client = client;
        this.request = request;
        this.asMade = asMade;
        this.url = url;
        this.body = body;
    }

    /** The transport of this call, or null when its body cannot be read ahead. */
    static SyncTransport of(SdkHttpClient client, HttpExecuteRequest request, String url) throws IOException {
        SdkHttpRequest head = SignedHeaders.withoutPrivateHeaders(request.httpRequest());
        byte[] bytes = null;
        Optional<ContentStreamProvider> content = request.contentStreamProvider();
        if (content.isPresent()) {
            try (InputStream in = content.get().newStream()) {
                bytes = readAtMost(in, MAX_BODY_BYTES);
            }
            if (bytes == null) {
                return null;
            }
        }
        HttpExecuteRequest attempt = head == request.httpRequest()
                ? request
                : HttpExecuteRequest.builder()
                        .request(head)
                        .contentStreamProvider(content.orElse(null))
                        .metricCollector(request.metricCollector().orElse(null))
                        .build();
        return new SyncTransport(client, attempt, request.httpRequest(), url, bytes);
    }

    /** The stream's bytes, or null when there are more than {@code max}. */
    static byte[] readAtMost(InputStream in, long max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        byte[] buffer = new byte[8192];
        long total = 0;
        for (int n; (n = in.read(buffer)) != -1; ) {
            total += n;
            if (total > max) {
                return null;
            }
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    int attemptsSent() {
        return attemptsSent.get();
    }

    /** The SDK aborted the call (its API call timeout, an interrupt): no further attempt starts, the one in flight is aborted. */
    void abort() {
        aborted = true;
        ExecutableHttpRequest attempt = inFlight;
        if (attempt != null) {
            attempt.abort();
        }
    }

    /** Closes an attempt's response the governance neither handed back nor discarded (it failed holding it). */
    void releaseUnclaimed() {
        HttpExecuteResponse response = unclaimed;
        unclaimed = null;
        if (response != null) {
            discard(response);
        }
    }

    /** The call as the SDK made it, outside governance (the fallback when Sluice fails before sending). */
    HttpExecuteResponse executeUngoverned() throws IOException {
        Bridge.beginDispatch();
        try {
            ExecutableHttpRequest attempt = client.prepareRequest(request);
            inFlight = attempt;
            return attempt.call();
        } finally {
            Bridge.endDispatch();
        }
    }

    @Override
    public String library() {
        return "aws-sdk-v2";
    }

    @Override
    public String method() {
        return asMade.method().name().toUpperCase(Locale.ROOT);
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public Map<String, List<String>> requestHeaders() {
        return asMade.headers();
    }

    @Override
    public byte[] requestBody() {
        return body;
    }

    @Override
    public long callerTimeoutNanos() {
        return 0; // the SDK's API call timeout aborts the call (abort()), it is not told ahead
    }

    @Override
    public boolean isCancelled() {
        return aborted || Thread.currentThread().isInterrupted();
    }

    @Override
    public Object send(BodyObserver observer) throws Exception {
        if (aborted) {
            throw new IOException("the call was aborted");
        }
        HttpExecuteResponse response;
        Bridge.beginDispatch();
        try {
            ExecutableHttpRequest attempt = client.prepareRequest(request);
            inFlight = attempt;
            attemptsSent.incrementAndGet();
            if (aborted) {
                attempt.abort();
            }
            response = attempt.call();
        } finally {
            Bridge.endDispatch();
        }
        return settled(response, observer);
    }

    @Override
    public CompletableFuture<Object> sendAsync(BodyObserver observer) {
        // a synchronous client has no asynchronous form: the governance only calls send for it
        CompletableFuture<Object> result = new CompletableFuture<>();
        try {
            result.complete(send(observer));
        } catch (Throwable e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /** 2xx: the body streams to the SDK through the observer; otherwise it is buffered now. */
    private HttpExecuteResponse settled(HttpExecuteResponse response, BodyObserver observer) throws IOException {
        SdkHttpResponse head = response.httpResponse();
        Optional<AbortableInputStream> content = response.responseBody();
        if (head.isSuccessful()) {
            if (!content.isPresent()) {
                observer.onEnd();
                unclaimed = response;
                return response;
            }
            HttpExecuteResponse observed = HttpExecuteResponse.builder()
                    .response(head)
                    .responseBody(BodyTap.tap(content.get(), observer))
                    .build();
            unclaimed = observed;
            return observed;
        }
        byte[] bytes;
        if (content.isPresent()) {
            try (AbortableInputStream in = content.get()) {
                bytes = readAtMost(in, Long.MAX_VALUE);
            }
        } else {
            bytes = new byte[0];
        }
        HttpExecuteResponse buffered = HttpExecuteResponse.builder()
                .response(head)
                .responseBody(AbortableInputStream.create(new ByteArrayInputStream(bytes)))
                .build();
        errorBodies.put(buffered, bytes);
        unclaimed = buffered;
        return buffered;
    }

    private static HttpExecuteResponse asResponse(Object response) {
        return (HttpExecuteResponse) response;
    }

    @Override
    public int status(Object response) {
        return asResponse(response).httpResponse().statusCode();
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        return asResponse(response).httpResponse().headers();
    }

    @Override
    public byte[] errorBody(Object response) {
        byte[] bytes = errorBodies.get(asResponse(response));
        return bytes == null ? new byte[0] : bytes;
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        HttpExecuteResponse attempt = asResponse(response);
        unclaimed = null;
        byte[] buffered = errorBodies.remove(attempt);
        AbortableInputStream content = buffered != null
                ? AbortableInputStream.create(
                        new ByteArrayInputStream(buffered)) // whatever read it, the SDK gets every byte
                : attempt.responseBody().orElse(null);
        return HttpExecuteResponse.builder()
                .response(withHeaders(attempt.httpResponse(), setHeaders))
                .responseBody(content)
                .build();
    }

    /** The answer with these headers set (replacing any of the same name), as the SDK's own full response type. */
    static SdkHttpFullResponse withHeaders(SdkHttpResponse head, Map<String, String> setHeaders) {
        SdkHttpFullResponse.Builder b =
                SdkHttpFullResponse.builder().statusCode(head.statusCode()).headers(head.headers());
        if (head.statusText().isPresent()) {
            b.statusText(head.statusText().get());
        }
        if (setHeaders != null) {
            for (Map.Entry<String, String> header : setHeaders.entrySet()) {
                b.removeHeader(header.getKey());
                b.putHeader(header.getKey(), Collections.singletonList(header.getValue()));
            }
        }
        return b.build();
    }

    @Override
    public void discard(Object response) {
        HttpExecuteResponse attempt = asResponse(response);
        unclaimed = null;
        errorBodies.remove(attempt);
        Optional<AbortableInputStream> content = attempt.responseBody();
        if (content.isPresent()) {
            try {
                content.get().close();
            } catch (IOException | RuntimeException ignored) {
                // a response we release may already be broken
            }
        }
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] bytes) {
        return HttpExecuteResponse.builder()
                .response(localHead(status, headers))
                .responseBody(
                        AbortableInputStream.create(new ByteArrayInputStream(bytes == null ? new byte[0] : bytes)))
                .build();
    }

    static SdkHttpFullResponse localHead(int status, Map<String, List<String>> headers) {
        SdkHttpFullResponse.Builder b = SdkHttpFullResponse.builder().statusCode(status);
        if (headers != null) {
            for (Map.Entry<String, List<String>> header : headers.entrySet()) {
                b.putHeader(header.getKey(), header.getValue());
            }
        }
        return b.build();
    }

    /** Runs on the calling thread: a synchronous call's completions never originate on Sluice's threads. */
    private static final Executor SAME_THREAD = new Executor() {
        @Override
        public void execute(Runnable command) {
            command.run();
        }
    };

    @Override
    public Executor callbackExecutor() {
        return SAME_THREAD;
    }

    /** What a governed call ends with, as {@code ExecutableHttpRequest.call()} must end. */
    static HttpExecuteResponse outcome(CallOutcome outcome) throws IOException {
        Throwable failure = outcome.failure();
        if (failure == null) {
            return (HttpExecuteResponse) outcome.response();
        }
        if (failure instanceof IOException) {
            throw (IOException) failure;
        }
        if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        }
        if (failure instanceof Error) {
            throw (Error) failure;
        }
        throw new IOException(failure);
    }
}
