package dev.sluice.testapp;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.HttpTransport;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A scripted stand-in for the core governor, used only by the forked test applications: it runs
 * attempts through the transport, sets response headers, retries once on 503, answers a local
 * 429 for {@code /v1/limited}, waits asynchronously before admitting async calls, throws where a
 * test asks it to, and records what it saw so the application can print it.
 */
public final class ScriptedGovernance implements Governance {

    /** What one governed call looked like from the governance's side. */
    public static final class Seen {
        public final String library;
        public final String method;
        public final String url;
        public final Map<String, List<String>> headers;
        public final byte[] requestBody;
        public final long timeoutNanos;
        public final AtomicInteger attempts = new AtomicInteger();
        public final AtomicLong bodyBytes = new AtomicLong();
        public final AtomicBoolean ended = new AtomicBoolean();
        public final AtomicBoolean failed = new AtomicBoolean();
        public final AtomicBoolean closed = new AtomicBoolean();
        public volatile boolean cancelledSeen;
        public volatile String completionThread;

        Seen(HttpTransport t) {
            library = t.library();
            method = t.method();
            url = t.url();
            headers = t.requestHeaders();
            byte[] body = t.requestBody(); // lent: copied now, as the contract asks
            requestBody = body == null ? null : java.util.Arrays.copyOf(body, t.requestBodyLength());
            timeoutNanos = t.callerTimeoutNanos();
        }

        BodyObserver observer() {
            return new BodyObserver() {
                @Override
                public void onBytes(byte[] chunk, int offset, int length) {
                    bodyBytes.addAndGet(length);
                }

                @Override
                public void onEnd() {
                    ended.set(true);
                }

                @Override
                public void onFailure(Throwable failure) {
                    failed.set(true);
                }

                @Override
                public void onClose() {
                    closed.set(true);
                }
            };
        }

        public String header(String name) {
            for (Map.Entry<String, List<String>> e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name)) {
                    return String.join(",", e.getValue());
                }
            }
            return null;
        }
    }

    public final Map<String, Seen> seen = new ConcurrentHashMap<>();
    public final AtomicInteger hookFaults = new AtomicInteger();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-test-scheduler");
        t.setDaemon(true);
        return t;
    });

    /**
     * Async admission of {@code /v1/chat} waits this long on the governance's own thread before
     * the first attempt (the proof that the caller is not blocked); other async calls wait 20 ms.
     */
    public volatile long asyncAdmissionDelayMillis = 500;

    @Override
    public boolean governs(String url) {
        if (url.contains("/v1/throw-governs")) {
            throw new IllegalStateException("scripted: governs() fails");
        }
        return url.contains("/v1/");
    }

    private Seen record(HttpTransport transport) {
        Seen s = new Seen(transport);
        String id = s.header("X-Test-Id");
        seen.put(id == null ? transport.url() : id, s);
        return s;
    }

    @Override
    public CallOutcome execute(HttpTransport transport) {
        Seen s = record(transport);
        String url = transport.url();
        if (url.contains("/v1/explode-before")) {
            throw new IllegalStateException("scripted: governance fails before any attempt");
        }
        if (url.contains("/v1/limited")) {
            return CallOutcome.response(localRejection(transport));
        }
        for (int attempt = 1; ; attempt++) {
            if (transport.isCancelled()) {
                s.cancelledSeen = true;
                return CallOutcome.failure(new java.io.InterruptedIOException("cancelled"));
            }
            Object response;
            s.attempts.incrementAndGet();
            try {
                response = transport.send(s.observer());
            } catch (Exception e) {
                return CallOutcome.failure(e);
            }
            if (url.contains("/v1/explode-after")) {
                throw new IllegalStateException("scripted: governance fails after an attempt was sent");
            }
            int status = transport.status(response);
            if (status == 503 && attempt == 1) {
                transport.errorBody(response);
                transport.discard(response);
                continue;
            }
            return CallOutcome.response(transport.handBack(response, decision(attempt)));
        }
    }

    @Override
    public CompletableFuture<Object> executeAsync(HttpTransport transport) {
        Seen s = record(transport);
        String url = transport.url();
        if (url.contains("/v1/explode-before")) {
            throw new IllegalStateException("scripted: governance fails before any attempt");
        }
        CompletableFuture<Object> result = new CompletableFuture<>();
        scheduler.schedule(
                () -> {
                    if (url.contains("/v1/limited")) {
                        complete(s, transport, result, localRejection(transport), null);
                    } else {
                        attemptAsync(s, transport, result, 1);
                    }
                },
                url.contains("/v1/chat") ? asyncAdmissionDelayMillis : 20,
                TimeUnit.MILLISECONDS);
        return result;
    }

    private void attemptAsync(Seen s, HttpTransport transport, CompletableFuture<Object> result, int attempt) {
        if (transport.isCancelled()) {
            s.cancelledSeen = true;
            complete(s, transport, result, null, new java.io.InterruptedIOException("cancelled"));
            return;
        }
        s.attempts.incrementAndGet();
        transport.sendAsync(s.observer()).whenComplete((response, failure) -> {
            if (failure != null) {
                complete(s, transport, result, null, failure);
                return;
            }
            int status = transport.status(response);
            if (status == 503 && attempt == 1) {
                transport.errorBody(response);
                transport.discard(response);
                // the retry starts from Sluice's own thread, as a real backoff would
                scheduler.schedule(() -> attemptAsync(s, transport, result, attempt + 1), 10, TimeUnit.MILLISECONDS);
                return;
            }
            complete(s, transport, result, transport.handBack(response, decision(attempt)), null);
        });
    }

    /** Completion is handed to the transport's executor: application code never runs on ours. */
    private static void complete(
            Seen s, HttpTransport transport, CompletableFuture<Object> result, Object response, Throwable failure) {
        transport.callbackExecutor().execute(() -> {
            s.completionThread = Thread.currentThread().getName();
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(response);
            }
        });
    }

    private static Map<String, String> decision(int attempts) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Sluice-Decision", "admitted");
        headers.put("X-Sluice-Attempts", Integer.toString(attempts));
        return headers;
    }

    private static Object localRejection(HttpTransport transport) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("content-type", Collections.singletonList("application/json"));
        headers.put("retry-after", Collections.singletonList("2"));
        headers.put("x-should-retry", Collections.singletonList("false"));
        byte[] body = "{\"error\":{\"type\":\"rate_limit\"},\"sluice\":{\"gateway_decision\":\"rejected_locally\"}}"
                .getBytes(StandardCharsets.UTF_8);
        return transport.localResponse(429, headers, body);
    }

    @Override
    public void onHookFault(String where, Throwable fault) {
        hookFaults.incrementAndGet();
    }
}
