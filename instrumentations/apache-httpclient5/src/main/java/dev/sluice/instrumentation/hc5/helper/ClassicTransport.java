package dev.sluice.instrumentation.hc5.helper;

import dev.sluice.bootstrap.Attempts;
import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.HttpTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.Configurable;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.CancellableDependency;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * One logical classic HttpClient 5 call offered to the governor. Each attempt is a fresh
 * {@code HttpUriRequestBase} (the application's headers minus {@code X-Sluice-*}, the body read
 * once, the request's own {@code RequestConfig}) sent through the application's client under the
 * bridge's dispatch guard, so the client's exec chain (interceptors, pool, auth, cookies) still
 * applies per attempt while the hook lets it through. The application's request is linked to the
 * attempt in flight ({@code setDependency}), so cancelling it aborts the attempt.
 */
final class ClassicTransport implements HttpTransport {

    /** Bodies above this are not read ahead: such a call is not governed. */
    private static final long MAX_BODY_BYTES = 64L << 20;

    private static volatile Method adapt;

    private final CloseableHttpClient client;
    private final HttpHost target;
    private final ClassicHttpRequest request;
    /**
     * The exchange's context, dropped when the call is over: HttpClient keeps the response in it
     * ({@code http.response}), and the governor keeps this transport until the body settles, so
     * holding it would keep a dropped body reachable for ever.
     */
    private HttpContext context;

    private final boolean ownContext;
    private final String url;
    private final URI requestUri;
    private final byte[] body;
    private final ContentType contentType;
    private final String contentEncoding;
    private final Attempts<CloseableHttpResponse> attempts = new Attempts<>();

    private ClassicTransport(
            CloseableHttpClient client,
            HttpHost target,
            ClassicHttpRequest request,
            HttpContext context,
            boolean ownContext,
            String url,
            URI requestUri,
            byte[] body,
            ContentType contentType,
            String contentEncoding) {
        this.client = client;
        this.target = target;
        this.request = request;
        this.context = context;
        this.ownContext = ownContext;
        this.url = url;
        this.requestUri = requestUri;
        this.body = body;
        this.contentType = contentType;
        this.contentEncoding = contentEncoding;
    }

    /** The absolute URL of a request as {@code doExecute} sees it, or null when it has none. */
    static String urlOf(HttpHost target, HttpRequest request) {
        try {
            if (target != null) {
                String path = request.getPath();
                if (path == null || path.isEmpty()) {
                    path = "/";
                } else if (!path.startsWith("/")) {
                    URI absolute = URI.create(path);
                    if (absolute.isAbsolute()) {
                        return absolute.toString();
                    }
                    path = "/" + path;
                }
                return target.toURI() + path;
            }
            URI uri = request.getUri();
            return uri.isAbsolute() ? uri.toString() : null;
        } catch (Exception e) {
            return null;
        }
    }

    /** The transport of this call, or null when its body cannot be read ahead. */
    static ClassicTransport of(
            CloseableHttpClient client, HttpHost target, ClassicHttpRequest request, HttpContext context, String url)
            throws IOException {
        HttpEntity entity = request.getEntity();
        byte[] bytes = null;
        ContentType type = null;
        String encoding = null;
        if (entity != null) {
            if (entity.getContentLength() > MAX_BODY_BYTES) {
                return null;
            }
            type = Hc5Headers.contentType(entity.getContentType());
            encoding = entity.getContentEncoding();
            boolean repeatable = entity.isRepeatable();
            bytes = bytesOf(entity);
            if (!repeatable) {
                // read once: the application's request keeps a copy that can still be sent
                request.setEntity(new ByteArrayEntity(bytes, type, encoding));
            }
        }
        URI requestUri;
        try {
            requestUri = request.getUri();
        } catch (Exception e) {
            requestUri = URI.create(url);
        }
        boolean own = context == null;
        HttpContext ctx = own ? HttpClientContext.create() : context;
        return new ClassicTransport(client, target, request, ctx, own, url, requestUri, bytes, type, encoding);
    }

    /**
     * The body exactly as HttpClient would send it: through {@code writeTo}, the one method every
     * entity must implement for the client to send it. {@code getContent} is not: Spring's
     * {@code HttpComponentsClientHttpRequest.BodyEntity} (every RestClient call over HttpClient 5)
     * throws {@code UnsupportedOperationException} from it, and so does any entity that only streams.
     */
    static byte[] bytesOf(HttpEntity entity) throws IOException {
        long length = entity.getContentLength();
        ByteArrayOutputStream out =
                new ByteArrayOutputStream(length > 0 && length <= MAX_BODY_BYTES ? (int) length : 1024);
        entity.writeTo(out);
        return out.toByteArray();
    }

    int attemptsSent() {
        return attempts.sent();
    }

    /** The call is over: the application's context no longer marks attempts as Sluice's. */
    void finish() {
        HttpContext ctx = context;
        context = null;
        attempts.clear();
        if (!ownContext && ctx != null) {
            GovernedMark.callOver(ctx);
        }
    }

    /** Closes an attempt's response the governance neither handed back nor discarded (it failed holding it). */
    void releaseUnclaimed() {
        CloseableHttpResponse response = attempts.takeUnclaimed();
        if (response != null) {
            closeQuietly(response);
        }
    }

    /** The call as the application made it, outside governance (the fallback when Sluice fails before sending). */
    CallOutcome executeUngoverned() {
        HttpUriRequestBase attempt = newAttempt();
        Bridge.beginDispatch();
        try {
            return CallOutcome.response(client.execute(target, attempt, ownContext ? null : context));
        } catch (Exception e) {
            return CallOutcome.failure(e);
        } finally {
            Bridge.endDispatch();
        }
    }

    private HttpUriRequestBase newAttempt() {
        HttpUriRequestBase attempt = new HttpUriRequestBase(request.getMethod(), requestUri);
        if (request.getVersion() != null) {
            attempt.setVersion(request.getVersion());
        }
        for (Header header : request.getHeaders()) {
            if (!HttpTransport.isPrivateHeader(header.getName())) {
                attempt.addHeader(header);
            }
        }
        if (body != null) {
            attempt.setEntity(new ByteArrayEntity(body, contentType, contentEncoding));
        }
        if (request instanceof Configurable) {
            attempt.setConfig(((Configurable) request).getConfig());
        }
        if (request instanceof CancellableDependency) {
            ((CancellableDependency) request).setDependency(attempt); // cancelled at once if the request already is
        }
        attempts.sending();
        return attempt;
    }

    @Override
    public String library() {
        return "apache-httpclient5";
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
        return 0; // HttpClient 5 has per-phase timeouts (connect, response), no whole-call deadline
    }

    @Override
    public boolean isCancelled() {
        return request instanceof CancellableDependency && ((CancellableDependency) request).isCancelled();
    }

    @Override
    public Object send(BodyObserver observer) throws Exception {
        HttpUriRequestBase attempt = newAttempt();
        GovernedMark.beforeAttempt(context);
        CloseableHttpResponse response;
        Bridge.beginDispatch();
        try {
            response = client.execute(target, attempt, context);
        } finally {
            Bridge.endDispatch();
        }
        return settled(response, observer);
    }

    @Override
    public CompletableFuture<Object> sendAsync(BodyObserver observer) {
        // the classic client has no asynchronous form: the governance only calls send for it
        return HttpTransport.sentOnThisThread(this, observer);
    }

    /** 2xx: the body streams to the caller through the observer; otherwise it is buffered now. */
    private CloseableHttpResponse settled(CloseableHttpResponse response, BodyObserver observer) throws IOException {
        int status = response.getCode();
        HttpEntity entity = response.getEntity();
        if (status >= 200 && status < 300) {
            if (entity == null) {
                observer.onEnd();
                return attempts.answered(response);
            }
            // A response of its own around the observed body: HttpCore's entity keeps the response
            // it came with (5.4+: IncomingHttpEntity.message), and the release of a dropped body
            // holds that entity, so the body the application holds must hang off another object.
            BasicClassicHttpResponse observed = new BasicClassicHttpResponse(status, response.getReasonPhrase());
            if (response.getVersion() != null) {
                observed.setVersion(response.getVersion());
            }
            observed.setHeaders(response.getHeaders());
            observed.setEntity(new ObservedEntity(entity, observer));
            return attempts.answered(adapt(observed));
        }
        byte[] bytes;
        try {
            bytes = entity == null ? new byte[0] : EntityUtils.toByteArray(entity);
        } catch (IOException | RuntimeException e) {
            closeQuietly(response);
            throw e;
        }
        if (entity != null) {
            response.setEntity(new ByteArrayEntity(
                    bytes, Hc5Headers.contentType(entity.getContentType()), entity.getContentEncoding()));
        }
        return attempts.answeredWithError(response, bytes);
    }

    private static ClassicHttpResponse asResponse(Object response) {
        return (ClassicHttpResponse) response;
    }

    @Override
    public int status(Object response) {
        return asResponse(response).getCode();
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        return Hc5Headers.of(asResponse(response));
    }

    @Override
    public byte[] errorBody(Object response) {
        return attempts.errorBody(response);
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        ClassicHttpResponse attempt = asResponse(response);
        byte[] buffered = attempts.release(attempt);
        if (buffered != null) {
            // a fresh body: whatever read the buffered one, the caller gets every byte
            HttpEntity old = attempt.getEntity();
            attempt.setEntity(new ByteArrayEntity(
                    buffered,
                    old == null ? null : Hc5Headers.contentType(old.getContentType()),
                    old == null ? null : old.getContentEncoding()));
        }
        if (setHeaders != null) {
            for (Map.Entry<String, String> header : setHeaders.entrySet()) {
                attempt.setHeader(header.getKey(), header.getValue());
            }
        }
        return attempt;
    }

    @Override
    public void discard(Object response) {
        ClassicHttpResponse attempt = asResponse(response);
        attempts.release(attempt);
        closeQuietly(attempt);
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] body) {
        BasicClassicHttpResponse local = new BasicClassicHttpResponse(status);
        String type = null;
        if (headers != null) {
            for (Map.Entry<String, List<String>> header : headers.entrySet()) {
                for (String value : header.getValue()) {
                    local.addHeader(header.getKey(), value);
                    if ("content-type".equalsIgnoreCase(header.getKey())) {
                        type = value;
                    }
                }
            }
        }
        local.setEntity(new ByteArrayEntity(body == null ? new byte[0] : body, Hc5Headers.contentType(type)));
        return adapt(local);
    }

    /**
     * {@code CloseableHttpResponse.adapt}: public since 5.3, package-private in 5.2, the only way
     * to make the response type {@code doExecute} returns; the class path (no module) lets it be
     * opened.
     */
    private static CloseableHttpResponse adapt(ClassicHttpResponse response) {
        try {
            Method m = adapt;
            if (m == null) {
                m = CloseableHttpResponse.class.getDeclaredMethod("adapt", ClassicHttpResponse.class);
                m.setAccessible(true);
                adapt = m;
            }
            return (CloseableHttpResponse) m.invoke(null, response);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot build an HttpClient 5 response", e);
        }
    }

    @Override
    public Executor callbackExecutor() {
        return Runnable::run; // synchronous only: no completion ever originates on Sluice's threads
    }

    private static void closeQuietly(ClassicHttpResponse response) {
        try {
            response.close();
        } catch (IOException | RuntimeException ignored) {
            // a response we release may already be broken
        }
    }
}
