package dev.sluice.instrumentation.okhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.bootstrap.RetryLayers;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Headers;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import okio.Buffer;
import okio.Okio;

/**
 * One logical OkHttp call offered to the governor. Each attempt is
 * {@code client.newCall(strippedRequest)} run under the bridge's dispatch guard, so it passes
 * the hooks untouched while the application's interceptors, listeners and pool still apply.
 */
final class OkHttpTransport implements HttpTransport {

    /** The layer's name in Sluice's retry-layer counters. */
    static final String CONNECTION_RETRY_LAYER = "okhttp-retry-on-connection-failure";

    private final OkHttpClient client;
    /** The client Sluice's attempts go through: {@code client}, minus its connection retries while Sluice owns retries. */
    private final OkHttpClient attemptClient;

    private final Call original;
    private final Request request;
    /** The application's request less Sluice's private headers: what a fallback route rewrites. */
    private final Request stripped;
    /** What each attempt sends: {@link #stripped}, or its fallback route's rewrite of it. */
    private volatile Request outgoing;
    /** The body's bytes when the attempts send them (a copy of the request), else null. */
    private final byte[] ownBody;
    /** The body written ahead, until the governance asks for it, when the attempts send the application's own. */
    private Buffer unread;
    /** Where {@link #unread} was read into for the governance, until it is done with it. */
    private byte[] lentBody;

    private final int bodyLength;
    private final Map<Response, byte[]> errorBodies = new ConcurrentHashMap<>();
    private final AtomicInteger attemptsSent = new AtomicInteger();
    private volatile boolean cancelled;
    private volatile Call inFlight;
    /** The last attempt's response until it is handed back or discarded: released if Sluice fails holding it. */
    private volatile Response unclaimed;

    private OkHttpTransport(
            OkHttpClient client,
            OkHttpClient attemptClient,
            Call original,
            Request request,
            Request stripped,
            byte[] ownBody,
            Buffer unread,
            int bodyLength) {
        this.client = client;
        this.attemptClient = attemptClient;
        this.original = original;
        this.request = request;
        this.stripped = stripped;
        this.outgoing = stripped;
        this.ownBody = ownBody;
        this.unread = unread;
        this.bodyLength = bodyLength;
    }

    /**
     * The transport of {@code call}, or null when its body cannot be read ahead (duplex).
     *
     * <p>Sluice reads the body once, ahead. Its attempts send the application's own request when
     * they can: a body that may be written again (see {@link #writableAgain}) and no private header
     * to drop; no copy of the request is made, and the body's bytes are read for the governance
     * into an array kept for that ({@link BodyReadBuffer}). Otherwise they send a copy, with the
     * bytes read as its body.
     *
     * @param attemptClient the client governed attempts use (see {@link OkHttpHook})
     */
    static OkHttpTransport of(OkHttpClient client, OkHttpClient attemptClient, Call call) {
        Request request = call.request();
        RequestBody requestBody = request.body();
        byte[] bytes = null;
        Buffer unread = null;
        int length = 0;
        Request.Builder builder = null;
        if (requestBody != null) {
            if (requestBody.isDuplex()) {
                return null;
            }
            Buffer buffer = new Buffer();
            try {
                requestBody.writeTo(buffer);
            } catch (IOException e) {
                return null;
            }
            length = (int) buffer.size();
            if (writableAgain(requestBody)) {
                unread = buffer;
            } else {
                bytes = buffer.readByteArray();
                builder = request.newBuilder();
                builder.method(request.method(), RequestBody.create(requestBody.contentType(), bytes));
            }
        }
        Headers headers = request.headers();
        for (int i = 0; i < headers.size(); i++) {
            String name = headers.name(i);
            if (HttpTransport.isPrivateHeader(name)) {
                if (builder == null) {
                    builder = request.newBuilder();
                }
                builder.removeHeader(name);
            }
        }
        Request stripped = builder == null ? request : builder.build();
        return new OkHttpTransport(client, attemptClient, call, request, stripped, bytes, unread, length);
    }

    /**
     * Whether the body gives the same bytes each time it is written. OkHttp's own bodies and the
     * OpenAI and Anthropic SDKs' say so truly through {@code isOneShot()}; a body of another maker
     * may leave it false while writing from a stream it drains (OkHttp seldom writes a body twice,
     * so such a body works until Sluice writes it a second time): its bytes read are sent instead.
     * OkHttp's multipart body only passes on what its parts say, so each part is asked in turn.
     */
    private static boolean writableAgain(RequestBody body) {
        if (body instanceof MultipartBody) {
            for (MultipartBody.Part part : ((MultipartBody) body).parts()) {
                if (!writableAgain(part.body())) {
                    return false;
                }
            }
            return true;
        }
        String type = body.getClass().getName();
        boolean saysTruly =
                type.startsWith("okhttp3.") || type.startsWith("com.openai.") || type.startsWith("com.anthropic.");
        return saysTruly && !body.isOneShot();
    }

    int attemptsSent() {
        return attemptsSent.get();
    }

    ExecutorService dispatcherExecutor() {
        return client.dispatcher().executorService();
    }

    /** Closes an attempt's response the governance neither handed back nor discarded (it failed holding it). */
    void releaseUnclaimed() {
        Response response = unclaimed;
        unclaimed = null;
        if (response != null) {
            response.close();
        }
    }

    void cancel() {
        cancelled = true;
        Call attempt = inFlight;
        if (attempt != null) {
            attempt.cancel();
        }
    }

    /**
     * The call as the application made it, outside governance (the fallback when Sluice fails
     * before sending anything); only the private {@code X-Sluice-*} headers are dropped.
     */
    CallOutcome executeUngoverned() {
        Call attempt = newAttempt(client);
        Bridge.beginDispatch();
        try {
            return CallOutcome.response(attempt.execute());
        } catch (Exception e) {
            return CallOutcome.failure(e);
        } finally {
            Bridge.endDispatch();
        }
    }

    /** Asynchronous form of {@link #executeUngoverned()}: the callback sees the application's call. */
    void enqueueUngoverned(Callback callback) {
        Call attempt = newAttempt(client);
        Bridge.beginDispatch();
        try {
            attempt.enqueue(new Callback() {
                @Override
                public void onFailure(Call call, IOException e) {
                    callback.onFailure(original, e);
                }

                @Override
                public void onResponse(Call call, Response response) throws IOException {
                    callback.onResponse(original, response);
                }
            });
        } finally {
            Bridge.endDispatch();
        }
    }

    @Override
    public String library() {
        return "okhttp";
    }

    @Override
    public String method() {
        return request.method();
    }

    @Override
    public String url() {
        return request.url().toString();
    }

    @Override
    public Map<String, List<String>> requestHeaders() {
        return asMap(request.headers());
    }

    @Override
    public String[] requestHeaderPairs() {
        return pairs(request.headers());
    }

    /** OkHttp keeps headers as names and values in turn: handed over so, no map made. */
    private static String[] pairs(Headers headers) {
        int n = headers.size();
        String[] pairs = new String[n * 2];
        for (int i = 0; i < n; i++) {
            pairs[2 * i] = headers.name(i);
            pairs[2 * i + 1] = headers.value(i);
        }
        return pairs;
    }

    private static Map<String, List<String>> asMap(Headers headers) {
        Map<String, List<String>> map = new LinkedHashMap<>(headers.size() * 2);
        for (int i = 0; i < headers.size(); i++) {
            String name = headers.name(i);
            List<String> values = map.get(name); // not computeIfAbsent(key, lambda): see ObservedSource
            if (values == null) {
                // most names come once: no list of its own until a second value (two fewer objects a header)
                map.put(name, Collections.singletonList(headers.value(i)));
            } else {
                if (values.size() == 1) {
                    values = new ArrayList<>(values);
                    map.put(name, values);
                }
                values.add(headers.value(i));
            }
        }
        return map;
    }

    /** The body, read into a lent array at the governance's first ask when the attempts do not send these bytes. */
    @Override
    public byte[] requestBody() {
        if (ownBody != null) {
            return ownBody;
        }
        if (lentBody == null && unread != null) {
            byte[] into = BodyReadBuffer.borrow(bodyLength);
            int read = 0;
            int n;
            while (read < bodyLength && (n = unread.read(into, read, bodyLength - read)) > 0) {
                read += n;
            }
            unread = null;
            if (read < bodyLength) { // the buffer holds what it said it held: not reached
                BodyReadBuffer.giveBack(into);
                return null;
            }
            lentBody = into;
        }
        return lentBody;
    }

    @Override
    public int requestBodyLength() {
        return bodyLength;
    }

    @Override
    public void requestBodyRead() {
        byte[] lent = lentBody;
        lentBody = null;
        BodyReadBuffer.giveBack(lent);
        unread = null;
    }

    @Override
    public long callerTimeoutNanos() {
        return original.timeout().timeoutNanos();
    }

    @Override
    public boolean isCancelled() {
        return cancelled || original.isCanceled();
    }

    @Override
    public boolean canReroute() {
        return true;
    }

    /**
     * Later attempts send the application's request to {@code url}, these headers replaced or
     * removed, this body if given: never what an earlier route set (its key, its body).
     */
    @Override
    public void reroute(String url, Map<String, String> setHeaders, byte[] newBody) {
        Request.Builder builder = stripped.newBuilder().url(url);
        for (Map.Entry<String, String> h : setHeaders.entrySet()) {
            if (h.getValue() == null) {
                builder.removeHeader(h.getKey());
            } else {
                builder.header(h.getKey(), h.getValue());
            }
        }
        if (newBody != null) {
            RequestBody old = stripped.body();
            builder.method(stripped.method(), RequestBody.create(old == null ? null : old.contentType(), newBody));
        }
        outgoing = builder.build();
    }

    private Call newAttempt(OkHttpClient via) {
        Call attempt = via.newCall(outgoing);
        inFlight = attempt;
        attemptsSent.incrementAndGet();
        if (isCancelled()) {
            attempt.cancel();
        }
        return attempt;
    }

    /** One of Sluice's attempts: through {@link #attemptClient}, counted when it runs without connection retries. */
    private Call newGovernedAttempt() {
        if (attemptClient != client) {
            RetryLayers.passed(CONNECTION_RETRY_LAYER);
        }
        return newAttempt(attemptClient);
    }

    /**
     * An attempt failed before a response: with {@code retryOnConnectionFailure} on, OkHttp might
     * have sent it again on its own (a stale pooled connection, another route, a reset after the
     * request went out); Sluice's loop decides instead. Counted, approximately, as declined.
     */
    private void connectionFailed(IOException e) {
        if (attemptClient != client && !(e instanceof InterruptedIOException) && !isCancelled()) {
            RetryLayers.declined(CONNECTION_RETRY_LAYER);
        }
    }

    @Override
    public Object send(BodyObserver observer) throws Exception {
        Call attempt = newGovernedAttempt();
        Response response;
        Bridge.beginDispatch();
        try {
            response = attempt.execute();
        } catch (IOException e) {
            connectionFailed(e);
            throw e;
        } finally {
            Bridge.endDispatch();
        }
        return settled(response, observer);
    }

    @Override
    public CompletableFuture<Object> sendAsync(BodyObserver observer) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        Call attempt = newGovernedAttempt();
        Bridge.beginDispatch();
        try {
            attempt.enqueue(new Callback() {
                @Override
                public void onFailure(Call call, IOException e) {
                    connectionFailed(e);
                    result.completeExceptionally(e);
                }

                @Override
                public void onResponse(Call call, Response response) {
                    try {
                        result.complete(settled(response, observer));
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                }
            });
        } catch (Throwable e) {
            result.completeExceptionally(e);
        } finally {
            Bridge.endDispatch();
        }
        return result;
    }

    /** 2xx: the body streams to the caller through the observer; otherwise it is buffered now. */
    private Response settled(Response response, BodyObserver observer) throws IOException {
        ResponseBody responseBody = response.body();
        if (response.isSuccessful()) {
            if (responseBody == null) {
                observer.onEnd();
                return response;
            }
            ResponseBody observed =
                    new ObservedBody(responseBody, Okio.buffer(new ObservedSource(responseBody.source(), observer)));
            Response streaming = response.newBuilder().body(observed).build();
            unclaimed = streaming;
            return streaming;
        }
        byte[] bytes;
        MediaType type = null;
        if (responseBody == null) {
            bytes = new byte[0];
        } else {
            type = responseBody.contentType();
            try {
                bytes = responseBody.bytes();
            } finally {
                responseBody.close();
            }
        }
        Response buffered =
                response.newBuilder().body(ResponseBody.create(type, bytes)).build();
        errorBodies.put(buffered, bytes);
        unclaimed = buffered;
        return buffered;
    }

    private static Response asResponse(Object response) {
        return (Response) response;
    }

    @Override
    public int status(Object response) {
        return asResponse(response).code();
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        return asMap(asResponse(response).headers());
    }

    @Override
    public String[] responseHeaderPairs(Object response) {
        return pairs(asResponse(response).headers());
    }

    @Override
    public byte[] errorBody(Object response) {
        byte[] bytes = errorBodies.get(asResponse(response));
        return bytes == null ? new byte[0] : bytes;
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        Response attempt = asResponse(response);
        unclaimed = null;
        byte[] buffered = errorBodies.remove(attempt);
        if (buffered == null && (setHeaders == null || setHeaders.isEmpty())) {
            return attempt; // nothing to change: no copy of the response and its headers
        }
        Response.Builder builder = attempt.newBuilder();
        if (buffered != null) {
            // a fresh body: whatever read the buffered one, the caller gets every byte
            ResponseBody old = attempt.body();
            builder.body(ResponseBody.create(old == null ? null : old.contentType(), buffered));
        }
        if (setHeaders != null) {
            for (Map.Entry<String, String> header : setHeaders.entrySet()) {
                builder.header(header.getKey(), header.getValue());
            }
        }
        return builder.build();
    }

    @Override
    public void discard(Object response) {
        Response attempt = asResponse(response);
        unclaimed = null;
        errorBodies.remove(attempt);
        attempt.close();
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] body) {
        Headers.Builder all = new Headers.Builder();
        String contentType = null;
        if (headers != null) {
            for (Map.Entry<String, List<String>> header : headers.entrySet()) {
                for (String value : header.getValue()) {
                    all.add(header.getKey(), value);
                    if ("content-type".equalsIgnoreCase(header.getKey())) {
                        contentType = value;
                    }
                }
            }
        }
        long now = System.currentTimeMillis();
        return new Response.Builder()
                .request(request)
                .protocol(Protocol.HTTP_1_1)
                .code(status)
                .message(reasonPhrase(status))
                .headers(all.build())
                .body(ResponseBody.create(
                        contentType == null ? null : MediaType.parse(contentType), body == null ? new byte[0] : body))
                .sentRequestAtMillis(now)
                .receivedResponseAtMillis(now)
                .build();
    }

    private static String reasonPhrase(int status) {
        switch (status) {
            case 400:
                return "Bad Request";
            case 402:
                return "Payment Required";
            case 403:
                return "Forbidden";
            case 408:
                return "Request Timeout";
            case 413:
                return "Payload Too Large";
            case 429:
                return "Too Many Requests";
            case 500:
                return "Internal Server Error";
            case 503:
                return "Service Unavailable";
            case 504:
                return "Gateway Timeout";
            default:
                return status >= 200 && status < 300 ? "OK" : "";
        }
    }

    @Override
    public Executor callbackExecutor() {
        return dispatcherExecutor();
    }
}
