package dev.sluice.instrumentation.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.HttpTransport;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link HttpTransport} does, whatever its library: the contract the governor's exchange
 * engine relies on ({@code core/.../exchange}), checked against a real server on loopback.
 *
 * <p>Each instrumentation's tests extend this class with one concrete subclass that makes the
 * transport of a call as its hook does (the library's own client and request) and reads a
 * response as the application does (the library's own response type). Nothing is mocked: the
 * requests cross a socket, the bodies stream, and a body dropped unread is released by the JVM's
 * reference processing ({@code DroppedBodies}).
 *
 * <p>Each subclass's client holds at most one connection to a host where the library lets it say
 * so: a response that does not give its connection back then stops the next call, which the tests
 * see. A call hands back at most one response, as the governance does: other attempts are discarded.
 */
public abstract class HttpTransportContract {

    /** How long anything asynchronous may take before a test gives up on it. */
    protected static final long DEADLINE_MILLIS = 10_000;

    /** How soon a cancelled attempt stops: well before any client's own read timeout (OkHttp's is 10 s). */
    private static final long CANCEL_MILLIS = 3_000;

    protected static final String CHAT =
            "{\"model\":\"gpt-4o-mini\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    protected static final String ANSWER = "{\"id\":\"c1\",\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":3}}";
    protected static final String REFUSAL = "{\"error\":{\"type\":\"rate_limit_exceeded\",\"message\":\"slow down\"}}";

    protected LoopbackServer server;

    /** Threads of the application's, for a client that only blocks. */
    private final ExecutorService applicationThreads = Executors.newCachedThreadPool();

    @BeforeEach
    void startServer() {
        server = LoopbackServer.start();
    }

    @AfterEach
    void stopServer() {
        server.close();
        applicationThreads.shutdownNow();
    }

    // ------------------------------------------------------------------ what a library's test provides

    /** One call as the application makes it: method, URL, headers in order, body (null for none). */
    protected static final class ApplicationCall {
        public final String method;
        public final String url;
        public final List<String[]> headers = new ArrayList<>();
        /** The body's media type, which the library carries in its own way (a header, an entity). */
        public final String contentType;

        public final byte[] body;

        private ApplicationCall(String method, String url, String contentType, byte[] body) {
            this.method = method;
            this.url = url;
            this.contentType = contentType;
            this.body = body;
        }

        public static ApplicationCall post(String url, String json) {
            return new ApplicationCall("POST", url, "application/json", json.getBytes(StandardCharsets.UTF_8));
        }

        public static ApplicationCall get(String url) {
            return new ApplicationCall("GET", url, null, null);
        }

        public ApplicationCall header(String name, String value) {
            headers.add(new String[] {name, value});
            return this;
        }
    }

    /** What the application got: the library's own response object, read to its end through the library's API. */
    protected static final class Received {
        public final Object response;
        public final int status;
        /** Names and values in turn, as the library gives them. */
        public final List<String[]> headers;

        public final String body;

        public Received(Object response, int status, List<String[]> headers, String body) {
            this.response = response;
            this.status = status;
            this.headers = headers;
            this.body = body;
        }

        /** The values of a header, looked up in any case. */
        public List<String> header(String name) {
            List<String> values = new ArrayList<>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    values.add(h[1]);
                }
            }
            return values;
        }
    }

    /** The transport of {@code call}, made as the library's hook makes it (the agent is not attached: built directly). */
    protected abstract HttpTransport transport(ApplicationCall call) throws Exception;

    /** The call is over: what the hook does once the governance returned (nothing by default). */
    protected void callEnded(HttpTransport transport) {}

    /** The library's own type of the response its application gets. */
    protected abstract Class<?> responseType();

    /**
     * What the application gets of {@code response} (handed back, or made locally): read to its end
     * and closed, as the application reads it through the library's own API.
     */
    protected abstract Received receive(HttpTransport transport, Object response) throws Exception;

    /** The application lets go of {@code response}'s body without reading it: closes it, or returns unread. */
    protected abstract void closeUnread(HttpTransport transport, Object response) throws Exception;

    /**
     * The application takes {@code response}'s body as it would to read it, then drops it, neither
     * read nor closed. Nothing of the body may stay reachable from the implementation once it returns.
     */
    protected abstract void dropUnread(HttpTransport transport, Object response) throws Exception;

    /** The application cancels the call, the library's way, as its hook relays it (and the governance, for an async call). */
    protected abstract void cancel(HttpTransport transport, CompletableFuture<Object> attempt);

    /**
     * An attempt sent while the test goes on: {@link HttpTransport#sendAsync}, or for a client that
     * has only a blocking send, {@link HttpTransport#send} on a thread of its own.
     */
    protected CompletableFuture<Object> sendWhileTheTestGoesOn(HttpTransport transport, BodyObserver observer) {
        return transport.sendAsync(observer);
    }

    /** {@link HttpTransport#send} on a thread of the application's, for a client that only blocks. */
    protected final CompletableFuture<Object> sendOnAThreadOfItsOwn(HttpTransport transport, BodyObserver observer) {
        CompletableFuture<Object> attempt = new CompletableFuture<>();
        applicationThreads.execute(() -> {
            try {
                attempt.complete(transport.send(observer));
            } catch (Throwable e) {
                attempt.completeExceptionally(e);
            }
        });
        return attempt;
    }

    // ------------------------------------------------------------------ the request

    @Test
    void theTransportTellsTheCallAsTheApplicationMadeIt() throws Exception {
        HttpTransport t = transport(chat().header("X-Trace", "t-1").header("X-Sluice-Tenant", "search"));
        assertThat(t.library()).isNotBlank();
        assertThat(t.method()).isEqualTo("POST");
        assertThat(t.url()).isEqualTo(server.url("/v1/chat/completions"));
        assertThat(t.isCancelled()).isFalse();
        assertThat(t.callbackExecutor()).isNotNull();
        Map<String, List<String>> headers = requestHeadersOf(t);
        assertThat(headers.get("authorization")).containsExactly("Bearer sk-test");
        assertThat(headers.get("x-trace")).containsExactly("t-1");
        assertThat(headers.get("x-sluice-tenant")).containsExactly("search");
        callEnded(t);
    }

    /** A retry sends the body again: the governance read it once, ahead, and kept nothing of it. */
    @Test
    void theBodyIsLentWholeAndEveryAttemptSendsItOnceTheGovernanceIsDone() throws Exception {
        server.reply(LoopbackServer.Reply.status(429).json(REFUSAL));
        HttpTransport t = transport(chat());
        byte[] lent = t.requestBody();
        assertThat(lent).isNotNull();
        assertThat(new String(lent, 0, t.requestBodyLength(), StandardCharsets.UTF_8))
                .isEqualTo(CHAT);
        t.requestBodyRead();

        t.discard(t.send(new RecordingObserver())); // refused: retried
        Received received = receive(t, t.handBack(t.send(new RecordingObserver()), Collections.emptyMap()));
        callEnded(t);

        assertThat(received.status).isEqualTo(200);
        assertThat(server.requests()).hasSize(2).allSatisfy(r -> {
            assertThat(r.method).isEqualTo("POST");
            assertThat(r.path).isEqualTo("/v1/chat/completions");
            assertThat(r.bodyText()).isEqualTo(CHAT);
            assertThat(r.header("content-type")).singleElement().asString().startsWith("application/json");
        });
    }

    @Test
    void aCallWithoutABodyLendsNone() throws Exception {
        HttpTransport t =
                transport(ApplicationCall.get(server.url("/v1/models")).header("Authorization", "Bearer sk-test"));
        assertThat(t.requestBodyLength()).isZero();
        t.requestBodyRead();
        assertThat(t.method()).isEqualTo("GET");
        assertThat(receive(t, t.handBack(t.send(new RecordingObserver()), Collections.emptyMap())).status)
                .isEqualTo(200);
        callEnded(t);
        assertThat(server.requests()).singleElement().satisfies(r -> {
            assertThat(r.method).isEqualTo("GET");
            assertThat(r.body).isEmpty();
        });
    }

    @Test
    void sluicesPrivateHeadersNeverLeaveTheJvm() throws Exception {
        HttpTransport t = transport(chat().header("X-Sluice-Tenant", "search").header("x-sluice-class", "batch"));
        t.requestBodyRead();
        receive(t, t.handBack(t.send(new RecordingObserver()), Collections.emptyMap()));
        callEnded(t);
        LoopbackServer.Recorded r = server.requests().get(0);
        assertThat(r.headerNames()).noneMatch(HttpTransport::isPrivateHeader);
        assertThat(r.header("authorization")).containsExactly("Bearer sk-test");
    }

    // ------------------------------------------------------------------ a success

    @Test
    void theResponseHeadersAreTheProvidersOwn() throws Exception {
        server.reply(LoopbackServer.Reply.status(200)
                .header("x-ratelimit-remaining-requests", "7")
                .header("x-multi", "a")
                .header("x-multi", "b")
                .json(ANSWER));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        Object response = t.send(new RecordingObserver());
        assertThat(t.status(response)).isEqualTo(200);
        Map<String, List<String>> headers = responseHeadersOf(t, response);
        assertThat(headers.get("x-ratelimit-remaining-requests")).containsExactly("7");
        assertThat(headers.get("x-multi")).containsExactlyInAnyOrder("a", "b");
        receive(t, t.handBack(response, Collections.emptyMap()));
        callEnded(t);
    }

    @Test
    void aSuccessStreamsToTheApplicationThroughTheObserver() throws Exception {
        server.reply(LoopbackServer.Reply.status(200)
                .header("Content-Type", "text/event-stream")
                .chunks("data: {\"a\":1}\n\n", "data: {\"b\":2}\n\n", "data: [DONE]\n\n"));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        RecordingObserver observer = new RecordingObserver();
        Object response = t.send(observer);
        assertThat(observer.failures()).isZero();

        Received received = receive(t, t.handBack(response, Collections.emptyMap()));
        callEnded(t);

        String streamed = "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n";
        assertThat(received.response).isInstanceOf(responseType());
        assertThat(received.status).isEqualTo(200);
        assertThat(received.body).isEqualTo(streamed);
        await(() -> observer.ends() == 1, "the observer hears the end: " + observer);
        assertThat(observer.text()).isEqualTo(streamed);
        assertThat(observer.failures()).isZero();
        assertThat(observer.closes()).isLessThanOrEqualTo(1);
    }

    @Test
    void theHandBackSetsTheGovernorsHeadersOverTheProviders() throws Exception {
        server.reply(LoopbackServer.Reply.status(200)
                .header("x-should-retry", "true")
                .header("x-kept", "1")
                .json(ANSWER));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        Object response = t.send(new RecordingObserver());
        Map<String, String> set = new LinkedHashMap<>();
        set.put("x-should-retry", "false");
        set.put("x-sluice-decision", "admitted");

        Received received = receive(t, t.handBack(response, set));
        callEnded(t);

        assertThat(received.header("x-should-retry")).containsExactly("false");
        assertThat(received.header("x-sluice-decision")).containsExactly("admitted");
        assertThat(received.header("x-kept")).containsExactly("1");
        assertThat(received.body).isEqualTo(ANSWER);
    }

    // ------------------------------------------------------------------ an error

    @Test
    void anErrorIsReadWholeForTheGovernorAndHandedBackIntact() throws Exception {
        server.reply(LoopbackServer.Reply.status(429).header("retry-after", "2").json(REFUSAL));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        RecordingObserver observer = new RecordingObserver();
        Object response = t.send(observer);

        assertThat(t.status(response)).isEqualTo(429);
        assertThat(new String(t.errorBody(response), StandardCharsets.UTF_8)).isEqualTo(REFUSAL);
        assertThat(new String(t.errorBody(response), StandardCharsets.UTF_8)).isEqualTo(REFUSAL);
        assertThat(responseHeadersOf(t, response).get("retry-after")).containsExactly("2");
        Received received = receive(t, t.handBack(response, Collections.singletonMap("x-should-retry", "false")));
        callEnded(t);

        assertThat(received.response).isInstanceOf(responseType());
        assertThat(received.status).isEqualTo(429);
        assertThat(received.body).isEqualTo(REFUSAL);
        assertThat(received.header("retry-after")).containsExactly("2");
        assertThat(received.header("x-should-retry")).containsExactly("false");
        assertThat(observer.told())
                .as("an error's body is not the observer's: %s", observer)
                .isFalse();
    }

    @Test
    void anErrorWithoutABodyHasAnEmptyOne() throws Exception {
        server.reply(LoopbackServer.Reply.status(503));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        Object response = t.send(new RecordingObserver());
        assertThat(t.status(response)).isEqualTo(503);
        assertThat(t.errorBody(response)).isEmpty();
        Received received = receive(t, t.handBack(response, Collections.emptyMap()));
        callEnded(t);
        assertThat(received.status).isEqualTo(503);
        assertThat(received.body).isEmpty();
    }

    @Test
    void aRefusedConnectionFailsTheAttemptWithAnIOException() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        HttpTransport t =
                transport(ApplicationCall.post("http://127.0.0.1:" + closedPort + "/v1/chat/completions", CHAT)
                        .header("Authorization", "Bearer sk-test"));
        t.requestBodyRead();
        RecordingObserver observer = new RecordingObserver();
        try {
            t.send(observer);
            fail("an attempt to a closed port was answered");
        } catch (IOException expected) {
            // the library's own failure, which the governor classifies
        } finally {
            callEnded(t);
        }
        assertThat(observer.told()).isFalse();
    }

    // ------------------------------------------------------------------ Sluice's own answers

    @Test
    void aLocalAnswerIsTheLibrarysOwnResponseAndNeverTouchesTheNetwork() throws Exception {
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("content-type", List.of("application/json"));
        headers.put("retry-after", List.of("3"));
        headers.put("x-should-retry", List.of("false"));
        headers.put("x-sluice-decision", List.of("rejected_locally"));
        byte[] body = REFUSAL.getBytes(StandardCharsets.UTF_8);

        Object local = t.localResponse(429, headers, body);
        Received received = receive(t, local);
        callEnded(t);

        assertThat(received.response).isInstanceOf(responseType());
        assertThat(received.status).isEqualTo(429);
        assertThat(received.body).isEqualTo(REFUSAL);
        assertThat(received.header("retry-after")).containsExactly("3");
        assertThat(received.header("x-should-retry")).containsExactly("false");
        assertThat(received.header("x-sluice-decision")).containsExactly("rejected_locally");
        assertThat(server.requests()).isEmpty();
    }

    /** A caller that cancelled as its answer came: the answer, Sluice's own, is discarded without a fault. */
    @Test
    void aDiscardedLocalAnswerReleasesNothingAndNeverThrows() throws Exception {
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        t.discard(t.localResponse(429, Collections.emptyMap(), new byte[0]));
        callEnded(t);
        assertThat(server.requests()).isEmpty();
    }

    // ------------------------------------------------------------------ responses let go

    @Test
    void aDiscardedErrorGivesItsConnectionBack() throws Exception {
        server.reply(LoopbackServer.Reply.status(429).json(REFUSAL));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        t.discard(t.send(new RecordingObserver()));
        server.reply(LoopbackServer.Reply.status(200).json(ANSWER));
        Object retried = sendWhileTheTestGoesOn(t, new RecordingObserver()).get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        assertThat(receive(t, t.handBack(retried, Collections.emptyMap())).body).isEqualTo(ANSWER);
        callEnded(t);
        assertTheClientStillAnswers();
    }

    /** The caller cancelled as its answer came (the asynchronous engine discards the answer handed back). */
    @Test
    void aDiscardedSuccessClosesItsBodyForTheObserverAndGivesItsConnectionBack() throws Exception {
        server.reply(LoopbackServer.Reply.status(200).json(ANSWER));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        RecordingObserver observer = new RecordingObserver();
        t.discard(t.handBack(t.send(observer), Collections.emptyMap()));
        callEnded(t);
        await(observer::settled, "the observer hears the body's end or close: " + observer);
        assertTheClientStillAnswers();
    }

    @Test
    void aSuccessClosedUnreadSettlesAndGivesItsConnectionBack() throws Exception {
        server.reply(LoopbackServer.Reply.status(200).json(ANSWER));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        RecordingObserver observer = new RecordingObserver();
        closeUnread(t, t.handBack(t.send(observer), Collections.emptyMap()));
        callEnded(t);
        await(observer::settled, "the observer hears the body's end or close: " + observer);
        assertThat(observer.failures()).isZero();
        assertTheClientStillAnswers();
    }

    /** Without this, the permit is held until its lease expires, minutes later (bootstrap's DroppedBodies). */
    @Test
    void aSuccessTheApplicationDropsUnreadIsReleasedOnceUnreachable() throws Exception {
        server.reply(LoopbackServer.Reply.status(200)
                .header("Content-Type", "text/event-stream")
                .chunks("data: {\"a\":1}\n\n", "data: [DONE]\n\n"));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        RecordingObserver observer = new RecordingObserver();
        sendAndDrop(t, observer);
        callEnded(t);
        long deadline = System.currentTimeMillis() + DEADLINE_MILLIS;
        while (!observer.settled() && System.currentTimeMillis() < deadline) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(observer.settled())
                .as("a dropped body is released: %s", observer)
                .isTrue();
        assertTheClientStillAnswers();
    }

    /** Its own frame: once it returns nothing of the response is on the test's stack. */
    private void sendAndDrop(HttpTransport t, RecordingObserver observer) throws Exception {
        dropUnread(t, t.handBack(t.send(observer), Collections.emptyMap()));
    }

    // ------------------------------------------------------------------ cancel

    @Test
    void aCancelledCallStopsItsAttemptInFlight() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        LoopbackServer.Reply held =
                LoopbackServer.Reply.status(200).json(ANSWER).heldUntil(release);
        server.reply(held);
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        try {
            CompletableFuture<Object> attempt = sendWhileTheTestGoesOn(t, new RecordingObserver());
            assertThat(held.awaitRequest(DEADLINE_MILLIS))
                    .as("the attempt reached the server")
                    .isTrue();

            cancel(t, attempt);

            assertThat(t.isCancelled()).isTrue();
            try {
                Object answered = attempt.get(CANCEL_MILLIS, TimeUnit.MILLISECONDS);
                fail("a cancelled attempt was answered: " + answered);
            } catch (TimeoutException e) {
                fail("a cancelled attempt went on waiting for its answer");
            } catch (ExecutionException | CompletionException | java.util.concurrent.CancellationException expected) {
                // the attempt stopped
            }
        } finally {
            release.countDown();
            callEnded(t);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** A chat completion to the server, with the key an SDK sends. */
    protected ApplicationCall chat() {
        return ApplicationCall.post(server.url("/v1/chat/completions"), CHAT).header("Authorization", "Bearer sk-test");
    }

    /** Another call on the same client is answered: the last one left no connection taken. */
    private void assertTheClientStillAnswers() throws Exception {
        server.reply(LoopbackServer.Reply.status(200).json(ANSWER));
        HttpTransport t = transport(chat());
        t.requestBodyRead();
        CompletableFuture<Object> next = sendWhileTheTestGoesOn(t, new RecordingObserver());
        Object response;
        try {
            response = next.get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            next.cancel(true);
            throw new AssertionError("the next call found no connection: the last one kept its own", e);
        }
        assertThat(receive(t, t.handBack(response, Collections.emptyMap())).body)
                .isEqualTo(ANSWER);
        callEnded(t);
    }

    /** The request headers as the governance reads them: the pairs when given (and then the map agrees), else the map. */
    private static Map<String, List<String>> requestHeadersOf(HttpTransport t) {
        Map<String, List<String>> fromMap = lowerCased(t.requestHeaders());
        String[] pairs = t.requestHeaderPairs();
        if (pairs != null) {
            assertThat(lowerCased(pairs)).isEqualTo(fromMap);
        }
        return fromMap;
    }

    private static Map<String, List<String>> responseHeadersOf(HttpTransport t, Object response) {
        Map<String, List<String>> fromMap = lowerCased(t.responseHeaders(response));
        String[] pairs = t.responseHeaderPairs(response);
        if (pairs != null) {
            assertThat(lowerCased(pairs)).isEqualTo(fromMap);
        }
        return fromMap;
    }

    private static Map<String, List<String>> lowerCased(Map<String, List<String>> headers) {
        Map<String, List<String>> lower = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            lower.computeIfAbsent(h.getKey().toLowerCase(Locale.ROOT), n -> new ArrayList<>())
                    .addAll(h.getValue());
        }
        return lower;
    }

    private static Map<String, List<String>> lowerCased(String[] pairs) {
        Map<String, List<String>> lower = new LinkedHashMap<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            lower.computeIfAbsent(pairs[i].toLowerCase(Locale.ROOT), n -> new ArrayList<>())
                    .add(pairs[i + 1]);
        }
        return lower;
    }

    /** Polls {@code condition} until it holds or the deadline passes. */
    protected static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.currentTimeMillis() + DEADLINE_MILLIS;
        while (!condition.getAsBoolean()) {
            if (System.currentTimeMillis() > deadline) {
                fail("not within " + DEADLINE_MILLIS + " ms: " + what);
            }
            Thread.sleep(5);
        }
    }

    /** Names and values in turn, from a map (for a library whose headers are a map). */
    protected static List<String[]> pairsOf(Map<String, List<String>> headers) {
        List<String[]> pairs = new ArrayList<>();
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            for (String value : h.getValue()) {
                pairs.add(new String[] {h.getKey(), value});
            }
        }
        return pairs;
    }
}
