package dev.sluice.bootstrap;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One logical exchange as an HTTP library sees it, offered to the governor so it can admit,
 * send attempts, observe and retry without knowing the library. Implemented per library (JDK
 * HttpClient, OkHttp, ...) by the instrumentation's helper; one instance per logical call.
 *
 * <p>Responses are the library's own objects, opaque to the governor: it only passes them back
 * to methods of this interface.
 */
public interface HttpTransport {

    /** Short name of the library, for logs and metrics: {@code jdk-http-client}, {@code okhttp}. */
    String library();

    /** HTTP method of the request, upper case. */
    String method();

    /** The prefix of the private headers an application sets for Sluice, lower case. */
    String PRIVATE_HEADER_PREFIX = "x-sluice-";

    /**
     * Whether a request header is one of Sluice's private ones ({@code X-Sluice-*}, any case), which
     * every transport strips before the request leaves the JVM. Matched in place: no copy of the name.
     */
    static boolean isPrivateHeader(String name) {
        return name != null && name.regionMatches(true, 0, PRIVATE_HEADER_PREFIX, 0, PRIVATE_HEADER_PREFIX.length());
    }

    /** Absolute URL of the request. */
    String url();

    /** Request headers as the application set them, names as given (look them up case-insensitively). */
    Map<String, List<String>> requestHeaders();

    /**
     * The request headers as names and values in turn ({@code [name, value, name, value, ...]}, a
     * name given again for each of its values), for a library that keeps them that way; null (the
     * default) to have {@link #requestHeaders} read instead. Spares building a map on every call
     * only for Sluice to read a few names from it.
     */
    default String[] requestHeaderPairs() {
        return null;
    }

    /**
     * The request body; {@code null} when there is no body or it cannot be read without consuming
     * it. The governance reads it once, before the first attempt, then calls {@link
     * #requestBodyRead()} and keeps nothing of it: a transport whose attempts send the application's
     * own request may lend an array it reuses (the body then in its first {@link
     * #requestBodyLength()} bytes). A transport that wraps another forwards all three.
     */
    byte[] requestBody();

    /** How many of {@link #requestBody()}'s bytes are the body; by default the array's length. */
    default int requestBodyLength() {
        byte[] body = requestBody();
        return body == null ? 0 : body.length;
    }

    /** The governance is done reading {@link #requestBody()}: an array lent for it may be reused. */
    default void requestBodyRead() {}

    /** The caller's own timeout for the whole call in nanoseconds, or 0 when none is known. */
    long callerTimeoutNanos();

    /** True when the caller cancelled the call: no further attempt must start. */
    boolean isCancelled();

    /**
     * Whether {@link #reroute} can send this exchange's later attempts elsewhere; false (the
     * default) for a library whose requests Sluice cannot rebuild: its calls stay on their route.
     */
    default boolean canReroute() {
        return false;
    }

    /**
     * Sends this exchange's later attempts elsewhere (a fallback route): to {@code url}, with the
     * request headers named in {@code setHeaders} replaced (names lower case, matched in any case; a
     * null value removes the header), and {@code body} instead of the application's when not null.
     * Everything else of the request stays as the application made it.
     *
     * @throws UnsupportedOperationException when {@link #canReroute()} is false
     */
    default void reroute(String url, Map<String, String> setHeaders, byte[] body) {
        throw new UnsupportedOperationException(library() + " cannot reroute a call");
    }

    /**
     * Sends one attempt, blocking until the response headers arrive. Request headers whose names
     * start with {@code X-Sluice-} (any case) are stripped before the request leaves the JVM.
     * When the status is 2xx the body is handed to the caller as a stream that reports to
     * {@code observer}; otherwise the body is read completely before this returns (see
     * {@link #errorBody(Object)}) and the observer is not used.
     */
    Object send(BodyObserver observer) throws Exception;

    /** Asynchronous form of {@link #send(BodyObserver)}: never blocks the calling thread. */
    CompletableFuture<Object> sendAsync(BodyObserver observer);

    /**
     * {@link #sendAsync} of a client that only blocks (the governance calls {@link #send} for it):
     * {@code transport.send(observer)} on the calling thread, its outcome in a completed future.
     */
    static CompletableFuture<Object> sentOnThisThread(HttpTransport transport, BodyObserver observer) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        try {
            result.complete(transport.send(observer));
        } catch (Throwable e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /** Status code of a response returned by {@link #send}. */
    int status(Object response);

    /** Headers of a response returned by {@link #send}. */
    Map<String, List<String>> responseHeaders(Object response);

    /** The headers of a response as names and values in turn, or null: see {@link #requestHeaderPairs}. */
    default String[] responseHeaderPairs(Object response) {
        return null;
    }

    /** The buffered body of a non-2xx response returned by {@link #send}; empty when it had none. */
    byte[] errorBody(Object response);

    /**
     * The response to hand to the caller: the given one with these headers set (replacing any of
     * the same name). A non-2xx response is handed back with its buffered body intact.
     */
    Object handBack(Object response, Map<String, String> setHeaders);

    /** Releases a response that will not be handed back (an attempt about to be retried). */
    void discard(Object response);

    /** A response built by Sluice that never touched the network (a local rejection). */
    Object localResponse(int status, Map<String, List<String>> headers, byte[] body);

    /**
     * Where completions that originate on Sluice's own threads are handed to, so the
     * application's callbacks never run on them (the client's executor or dispatcher).
     */
    Executor callbackExecutor();
}
