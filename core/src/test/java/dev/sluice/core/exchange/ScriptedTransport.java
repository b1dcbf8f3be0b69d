package dev.sluice.core.exchange;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.HttpTransport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * An {@link HttpTransport} whose attempts answer from a script, for testing the engine's loop
 * without an HTTP library. A 2xx body reaches the observer when the test "reads" it.
 */
final class ScriptedTransport implements HttpTransport {

    static final class Response {
        final int status;
        final Map<String, List<String>> headers;
        final byte[] body;
        final boolean local;
        Map<String, String> setHeaders = Map.of();
        BodyObserver observer;

        /** Read whole inside {@code send}: {@link #read} then does nothing. */
        boolean readInSend;

        /** Its headers told to the observer inside {@code send}, before any byte of its body. */
        boolean headersTold;

        Response(int status, Map<String, List<String>> headers, byte[] body, boolean local) {
            this.status = status;
            this.headers = headers;
            this.body = body;
            this.local = local;
        }

        String header(String name) {
            String set = setHeaders.get(name);
            if (set != null) {
                return set;
            }
            List<String> v = headers.get(name);
            return v == null ? null : v.get(0);
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The application reads the body to its end. */
        void read() {
            if (observer != null) {
                observer.onBytes(body, 0, body.length);
                observer.onEnd();
            }
        }
    }

    private final String url;
    private final Map<String, List<String>> requestHeaders = new LinkedHashMap<>();
    private final byte[] requestBody;
    /** Set by {@link #lendingBody}: the body in a longer array, scrambled once the governance is done with it. */
    private byte[] lentBody;

    int bodyReadsDone;
    int attemptsBeforeBodyDone;
    private final Deque<Object> script = new ArrayDeque<>();
    final List<Long> attemptTimes = new ArrayList<>();
    int discarded;

    ScriptedTransport(String url, String body) {
        this.url = url;
        this.currentUrl = url;
        this.requestBody = body.getBytes(StandardCharsets.UTF_8);
    }

    /** Lends the body as a transport reusing its array does: followed by other bytes, overwritten once read. */
    ScriptedTransport lendingBody() {
        lentBody = java.util.Arrays.copyOf(requestBody, requestBody.length + 64);
        java.util.Arrays.fill(lentBody, requestBody.length, lentBody.length, (byte) 'x');
        return this;
    }

    ScriptedTransport header(String name, String value) {
        requestHeaders.put(name, List.of(value));
        return this;
    }

    ScriptedTransport answer(int status, String body, String... headerPairs) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i + 1 < headerPairs.length; i += 2) {
            h.put(headerPairs[i], List.of(headerPairs[i + 1]));
        }
        script.add(new Response(status, h, body.getBytes(StandardCharsets.UTF_8), false));
        return this;
    }

    /**
     * A 2xx read whole inside {@code send}, in two reads, as the JDK client's buffering handlers
     * do: its bytes reach the tap before the engine has its headers.
     */
    ScriptedTransport answerReadInSend(int status, String body, String... headerPairs) {
        answer(status, body, headerPairs);
        ((Response) script.peekLast()).readInSend = true;
        return this;
    }

    /**
     * A 2xx whose headers reach the observer before its body, as the JDK client's body handler
     * tells them; the body is then read whole inside {@code send} ({@code readInSend}) or later.
     */
    ScriptedTransport answerToldFirst(boolean readInSend, int status, String body, String... headerPairs) {
        answer(status, body, headerPairs);
        Response r = (Response) script.peekLast();
        r.headersTold = true;
        r.readInSend = readInSend;
        return this;
    }

    /** The observer of the last attempt sent. */
    BodyObserver lastObserver;

    /** Runs inside {@code send} once a body read there has ended, before the engine has the response. */
    Runnable whenBodyEndedInSend = () -> {};

    ScriptedTransport fail(IOException e) {
        script.add(e);
        return this;
    }

    /**
     * A 2xx whose body breaks while the client reads it whole, as the JDK client's buffering
     * handlers do inside {@code send}: the tap sees the first bytes and the failure, then the
     * attempt fails with it.
     */
    ScriptedTransport breakBody(String firstBytes, IOException e) {
        script.add(new BrokenBody(firstBytes.getBytes(StandardCharsets.UTF_8), e));
        return this;
    }

    private static final class BrokenBody {
        final byte[] firstBytes;
        final IOException failure;

        BrokenBody(byte[] firstBytes, IOException failure) {
            this.firstBytes = firstBytes;
            this.failure = failure;
        }
    }

    int attempts() {
        return attemptTimes.size();
    }

    /** Whether {@link #reroute} is offered: off unless a test turns it on. */
    boolean reroutable;

    /** Where each attempt went. */
    final List<String> sentTo = new ArrayList<>();

    private String currentUrl;

    /** The headers the last reroute set (a null value: removed). */
    Map<String, String> reroutedHeaders = Map.of();

    @Override
    public boolean canReroute() {
        return reroutable;
    }

    @Override
    public void reroute(String url, Map<String, String> setHeaders, byte[] body) {
        currentUrl = url;
        reroutedHeaders = setHeaders;
    }

    @Override
    public String library() {
        return "scripted";
    }

    @Override
    public String method() {
        return "POST";
    }

    @Override
    public String url() {
        return url;
    }

    @Override
    public Map<String, List<String>> requestHeaders() {
        return requestHeaders;
    }

    @Override
    public byte[] requestBody() {
        return lentBody != null ? lentBody : requestBody;
    }

    @Override
    public int requestBodyLength() {
        return requestBody.length;
    }

    @Override
    public void requestBodyRead() {
        bodyReadsDone++;
        if (lentBody != null) {
            java.util.Arrays.fill(lentBody, (byte) '#'); // reused by another call
        }
    }

    @Override
    public long callerTimeoutNanos() {
        return 0;
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public synchronized Object send(BodyObserver observer) throws Exception {
        attemptTimes.add(System.nanoTime());
        sentTo.add(currentUrl);
        if (bodyReadsDone == 0) {
            attemptsBeforeBodyDone++;
        }
        Object next = script.poll();
        if (next == null) {
            throw new IllegalStateException("script exhausted");
        }
        if (next instanceof IOException) {
            throw (IOException) next;
        }
        if (next instanceof BrokenBody) {
            BrokenBody broken = (BrokenBody) next;
            observer.onBytes(broken.firstBytes, 0, broken.firstBytes.length);
            observer.onFailure(broken.failure);
            throw broken.failure;
        }
        Response r = (Response) next;
        lastObserver = observer;
        if (r.status >= 200 && r.status < 300) {
            if (r.headersTold) {
                observer.onHeaders(r.headers);
            }
            if (r.readInSend) {
                int half = r.body.length / 2;
                observer.onBytes(r.body, 0, half);
                observer.onBytes(r.body, half, r.body.length - half);
                observer.onEnd();
                whenBodyEndedInSend.run();
            } else {
                r.observer = observer;
            }
        }
        return r;
    }

    @Override
    public CompletableFuture<Object> sendAsync(BodyObserver observer) {
        try {
            return CompletableFuture.completedFuture(send(observer));
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public int status(Object response) {
        return ((Response) response).status;
    }

    @Override
    public Map<String, List<String>> responseHeaders(Object response) {
        return ((Response) response).headers;
    }

    @Override
    public byte[] errorBody(Object response) {
        return ((Response) response).body;
    }

    @Override
    public Object handBack(Object response, Map<String, String> setHeaders) {
        ((Response) response).setHeaders = setHeaders;
        return response;
    }

    @Override
    public void discard(Object response) {
        discarded++;
    }

    @Override
    public Object localResponse(int status, Map<String, List<String>> headers, byte[] body) {
        return new Response(status, headers, body, true);
    }

    @Override
    public Executor callbackExecutor() {
        return Runnable::run;
    }
}
