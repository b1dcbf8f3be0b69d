package dev.sluice.instrumentation.hc4.helper;

import dev.sluice.bootstrap.Attempts;
import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.bootstrap.RetryLayers;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.http.Header;
import org.apache.http.HttpEntity;
import org.apache.http.HttpEntityEnclosingRequest;
import org.apache.http.HttpHost;
import org.apache.http.HttpRequest;
import org.apache.http.HttpResponse;
import org.apache.http.client.methods.AbstractExecutionAwareRequest;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.Configurable;
import org.apache.http.client.methods.HttpUriRequest;
import org.apache.http.client.protocol.HttpClientContext;
import org.apache.http.concurrent.Cancellable;
import org.apache.http.entity.ByteArrayEntity;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.protocol.HttpContext;
import org.apache.http.util.EntityUtils;

/**
 * One logical HttpClient 4 call offered to the governor. Each attempt is a fresh request (the
 * application's headers minus {@code X-Sluice-*}, the body read once, the request's own
 * {@code RequestConfig}) sent through the application's client under the bridge's dispatch guard,
 * so the client's exec chain still applies per attempt while the hook lets it through. Aborting
 * the application's request aborts the attempt in flight.
 */
final class Hc4Transport implements HttpTransport {

    /** ApacheHttpClient4Instrumentation.RETRY_LAYER. */
    static final String RETRY_LAYER = "apache-httpclient4-retry-handler";
    /** ApacheHttpClient4Instrumentation.GOVERNED_ATTRIBUTE. */
    static final String GOVERNED_ATTRIBUTE = "dev.sluice.governed";

    private static final long MAX_BODY_BYTES = 64L << 20;

    private final CloseableHttpClient client;
    private final HttpHost target;
    private final HttpRequest request;
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
    private final Header contentType;
    private final Header contentEncoding;
    private final Attempts<CloseableHttpResponse> attempts = new Attempts<>();

    private Hc4Transport(
            CloseableHttpClient client,
            HttpHost target,
            HttpRequest request,
            HttpContext context,
            boolean ownContext,
            String url,
            URI requestUri,
            byte[] body,
            Header contentType,
            Header contentEncoding) {
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

    private static String uriOf(HttpRequest request) {
        if (request instanceof HttpUriRequest && ((HttpUriRequest) request).getURI() != null) {
            return ((HttpUriRequest) request).getURI().toString();
        }
        return request.getRequestLine().getUri();
    }

    /** The absolute URL of a request as {@code doExecute} sees it, or null when it has none. */
    static String urlOf(HttpHost target, HttpRequest request) {
        try {
            String uri = uriOf(request);
            URI parsed = URI.create(uri);
            if (parsed.isAbsolute()) {
                return parsed.toString();
            }
            if (target == null) {
                return null;
            }
            return target.toURI() + (uri.startsWith("/") ? uri : "/" + uri);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The transport of this call, or null when its body cannot be read ahead. */
    static Hc4Transport of(
            CloseableHttpClient client, HttpHost target, HttpRequest request, HttpContext context, String url)
            throws IOException {
        byte[] bytes = null;
        Header type = null;
        Header encoding = null;
        if (request instanceof HttpEntityEnclosingRequest) {
            HttpEntityEnclosingRequest enclosing = (HttpEntityEnclosingRequest) request;
            HttpEntity entity = enclosing.getEntity();
            if (entity != null) {
                if (entity.getContentLength() > MAX_BODY_BYTES) {
                    return null;
                }
                type = entity.getContentType();
                encoding = entity.getContentEncoding();
                boolean repeatable = entity.isRepeatable();
                bytes = bytesOf(entity);
                if (!repeatable) {
                    // read once: the application's request keeps a copy that can still be sent
                    enclosing.setEntity(entity(bytes, type, encoding));
                }
            }
        }
        boolean own = context == null;
        HttpContext ctx = own ? HttpClientContext.create() : context;
        return new Hc4Transport(
                client, target, request, ctx, own, url, URI.create(uriOf(request)), bytes, type, encoding);
    }

    private static ByteArrayEntity entity(byte[] bytes, Header type, Header encoding) {
        ByteArrayEntity entity = new ByteArrayEntity(bytes);
        entity.setContentType(type);
        entity.setContentEncoding(encoding);
        return entity;
    }

    int attemptsSent() {
        return attempts.sent();
    }

    void finish() {
        HttpContext ctx = context;
        context = null;
        attempts.clear();
        if (!ownContext && ctx != null) {
            try {
                ctx.removeAttribute(GOVERNED_ATTRIBUTE);
            } catch (RuntimeException ignored) {
                // an application context that refuses: the mark only ever stands a retry aside
            }
        }
    }

    void releaseUnclaimed() {
        CloseableHttpResponse response = attempts.takeUnclaimed();
        if (response != null) {
            closeQuietly(response);
        }
    }

    CallOutcome executeUngoverned() {
        AttemptRequest attempt = newAttempt();
        Bridge.beginDispatch();
        try {
            return CallOutcome.response(client.execute(target, attempt, ownContext ? null : context));
        } catch (Exception e) {
            return CallOutcome.failure(e);
        } finally {
            Bridge.endDispatch();
        }
    }

    private AttemptRequest newAttempt() {
        final AttemptRequest attempt =
                new AttemptRequest(request.getRequestLine().getMethod());
        attempt.setURI(requestUri);
        attempt.setProtocolVersion(request.getProtocolVersion());
        for (Header header : request.getAllHeaders()) {
            if (!HttpTransport.isPrivateHeader(header.getName())) {
                attempt.addHeader(header);
            }
        }
        if (body != null) {
            attempt.setEntity(entity(body, contentType, contentEncoding));
        }
        if (request instanceof Configurable) {
            attempt.setConfig(((Configurable) request).getConfig());
        }
        if (request instanceof AbstractExecutionAwareRequest) {
            // aborting the application's request aborts this attempt (at once if it already is aborted)
            ((AbstractExecutionAwareRequest) request).setCancellable(new Cancellable() {
                @Override
                public boolean cancel() {
                    attempt.abort();
                    return true;
                }
            });
        }
        attempts.sending();
        return attempt;
    }

    @Override
    public String library() {
        return "apache-httpclient4";
    }

    @Override
    public String method() {
        return request.getRequestLine().getMethod().toUpperCase(Locale.ROOT);
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public Map<String, List<String>> requestHeaders() {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (Header header : request.getAllHeaders()) {
            map.computeIfAbsent(header.getName(), n -> new ArrayList<>(1)).add(header.getValue());
        }
        if (contentType != null && !request.containsHeader("Content-Type")) {
            List<String> one = new ArrayList<>(1);
            one.add(contentType.getValue());
            map.put("Content-Type", one);
        }
        return map;
    }

    @Override
    public byte[] requestBody() {
        return body;
    }

    @Override
    public long callerTimeoutNanos() {
        return 0; // HttpClient 4 has per-phase timeouts (connect, socket), no whole-call deadline
    }

    @Override
    public boolean isCancelled() {
        return request instanceof AbstractExecutionAwareRequest
                && ((AbstractExecutionAwareRequest) request).isAborted();
    }

    @Override
    public Object send(BodyObserver observer) throws Exception {
        AttemptRequest attempt = newAttempt();
        if (RetryLayers.ownsRetries()) {
            context.setAttribute(GOVERNED_ATTRIBUTE, Boolean.TRUE);
            RetryLayers.passed(RETRY_LAYER);
        } else {
            context.removeAttribute(GOVERNED_ATTRIBUTE);
        }
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

    /** 2xx: the body streams to the caller through the observer, in a response of its own; otherwise it is buffered now. */
    private CloseableHttpResponse settled(CloseableHttpResponse response, BodyObserver observer) throws IOException {
        int status = response.getStatusLine().getStatusCode();
        HttpEntity entity = response.getEntity();
        if (status >= 200 && status < 300) {
            if (entity == null) {
                observer.onEnd();
                return attempts.answered(response);
            }
            return attempts.answered(new ObservedResponse(response, new ObservedEntity(entity, observer)));
        }
        byte[] bytes;
        try {
            bytes = entity == null ? new byte[0] : EntityUtils.toByteArray(entity);
        } catch (IOException | RuntimeException e) {
            closeQuietly(response);
            throw e;
        }
        if (bytes == null) {
            bytes = new byte[0];
        }
        if (entity != null) {
            response.setEntity(entity(bytes, entity.getContentType(), entity.getContentEncoding()));
        }
        return attempts.answeredWithError(response, bytes);
    }

    private static HttpResponse asResponse(Object response) {
        return (HttpResponse) response;
    }

    @Override
    public int status(Object response) {
        return asResponse(response).getStatusLine().getStatusCode();
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (Header header : asResponse(response).getAllHeaders()) {
            map.computeIfAbsent(header.getName(), n -> new ArrayList<>(1)).add(header.getValue());
        }
        return map;
    }

    @Override
    public byte[] errorBody(Object response) {
        return attempts.errorBody(response);
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        HttpResponse attempt = asResponse(response);
        byte[] buffered = attempts.release(attempt);
        if (buffered != null) {
            HttpEntity old = attempt.getEntity();
            attempt.setEntity(entity(
                    buffered,
                    old == null ? null : old.getContentType(),
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
        HttpResponse attempt = asResponse(response);
        attempts.release(attempt);
        if (attempt instanceof CloseableHttpResponse) {
            closeQuietly((CloseableHttpResponse) attempt);
        }
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] body) {
        LocalResponse local = new LocalResponse(status, reasonPhrase(status));
        Header type = null;
        if (headers != null) {
            for (Map.Entry<String, List<String>> header : headers.entrySet()) {
                for (String value : header.getValue()) {
                    local.addHeader(header.getKey(), value);
                }
            }
        }
        type = local.getFirstHeader("Content-Type");
        local.setEntity(entity(body == null ? new byte[0] : body, type, null));
        return local;
    }

    private static String reasonPhrase(int status) {
        switch (status) {
            case 400:
                return "Bad Request";
            case 402:
                return "Payment Required";
            case 429:
                return "Too Many Requests";
            case 500:
                return "Internal Server Error";
            case 503:
                return "Service Unavailable";
            default:
                return status >= 200 && status < 300 ? "OK" : "";
        }
    }

    @Override
    public Executor callbackExecutor() {
        return Runnable::run; // synchronous only
    }

    private static void closeQuietly(CloseableHttpResponse response) {
        try {
            response.close();
        } catch (IOException | RuntimeException ignored) {
            // a response we release may already be broken
        }
    }

    /**
     * A request body exactly as HttpClient sends it: through {@code writeTo}, which every entity
     * implements; {@code getContent} may throw for an entity that only streams (Spring's request
     * entities do in HttpClient 5, the same may hold in 4).
     */
    static byte[] bytesOf(HttpEntity entity) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(
                entity.getContentLength() > 0 && entity.getContentLength() < Integer.MAX_VALUE
                        ? (int) entity.getContentLength()
                        : 1024);
        entity.writeTo(out);
        return out.toByteArray();
    }
}
