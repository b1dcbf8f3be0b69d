package dev.sluice.testapp;

import dev.sluice.bootstrap.Bridge;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSource;

/**
 * A plain OkHttp application (compiled against OkHttp 3.14.9, run on 3.14, 4.12 and 5.x) run in a
 * forked JVM with the agent. Installs the scripted governance, runs each scenario and prints what
 * it saw.
 */
public final class OkHttpApp {

    private static final MediaType JSON = MediaType.parse("application/json");
    private static final String BODY = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final String base;
    private final OkHttpClient client =
            new OkHttpClient.Builder().callTimeout(7, TimeUnit.SECONDS).build();
    private final ScriptedGovernance governance = new ScriptedGovernance();

    private OkHttpApp(String base) {
        this.base = base;
    }

    public static void main(String[] args) throws Exception {
        OkHttpApp app = new OkHttpApp("http://127.0.0.1:" + args[0]);
        Bridge.install(app.governance);
        Report.put("env.okhttpLoader", OkHttpClient.class.getClassLoader().getName());
        Report.put(
                "env.callClass",
                app.client
                        .newCall(new Request.Builder().url(app.base).build())
                        .getClass()
                        .getName());
        app.run();
        Report.environment(app.governance);
        app.client.dispatcher().executorService().shutdown();
        app.client.connectionPool().evictAll();
        System.exit(0);
    }

    private Request.Builder request(String path, String scenario) {
        return new Request.Builder()
                .url(base + path)
                .header("X-Test-Id", scenario)
                .header("X-Sluice-Tenant", "search");
    }

    private Request post(String path, String scenario) {
        return request(path, scenario).post(RequestBody.create(JSON, BODY)).build();
    }

    private void run() throws Exception {
        try (Response chat = client.newCall(post("/v1/chat", "chat-sync")).execute()) {
            Report.put("chat-sync.contentType", chat.body().contentType());
            Report.put("chat-sync.contentLength", chat.body().contentLength());
            response(
                    "chat-sync",
                    chat.code(),
                    chat.header("X-Sluice-Decision"),
                    chat.body().string());
        }
        try (Response flaky = client.newCall(post("/v1/flaky", "retry-sync")).execute()) {
            response(
                    "retry-sync",
                    flaky.code(),
                    flaky.header("X-Sluice-Attempts"),
                    flaky.body().string());
        }
        try (Response limited =
                client.newCall(post("/v1/limited", "limited-sync")).execute()) {
            response(
                    "limited-sync",
                    limited.code(),
                    limited.header("retry-after"),
                    limited.body().string());
            Report.put("limited-sync.message", limited.message());
            Report.put("limited-sync.protocol", limited.protocol());
        }
        try (Response plain = client.newCall(new Request.Builder()
                        .url(base + "/plain")
                        .header("X-Test-Id", "plain-sync")
                        .build())
                .execute()) {
            response(
                    "plain-sync",
                    plain.code(),
                    plain.header("X-Sluice-Decision"),
                    plain.body().string());
        }

        // streaming: SSE read line by line to the end
        try (Response stream =
                client.newCall(request("/v1/stream", "stream-sync").build()).execute()) {
            response(
                    "stream-sync",
                    stream.code(),
                    null,
                    "events=" + countEvents(stream.body().source()));
        }
        // streaming closed after the first event
        Response early =
                client.newCall(request("/v1/stream", "stream-early").build()).execute();
        String first = early.body().source().readUtf8Line();
        early.close();
        response("stream-early", early.code(), null, first);

        // a call object runs once, governed or not
        Call once = client.newCall(post("/v1/chat", "already-executed"));
        once.execute().close();
        try {
            once.execute();
            Report.put("already-executed.second", "ran");
        } catch (IllegalStateException e) {
            Report.put("already-executed.second", "IllegalStateException");
        }

        // a WebSocket upgrade to an LLM URL (a realtime API) keeps its own call: never governed
        CompletableFuture<String> socketDone = new CompletableFuture<>();
        client.newWebSocket(
                new Request.Builder()
                        .url(base + "/v1/realtime")
                        .header("X-Test-Id", "websocket")
                        .build(),
                new okhttp3.WebSocketListener() {
                    @Override
                    public void onFailure(okhttp3.WebSocket webSocket, Throwable t, Response response) {
                        socketDone.complete(response == null ? "no response" : "status " + response.code());
                    }
                });
        Report.put("websocket.outcome", socketDone.get(10, TimeUnit.SECONDS));
        Report.put("websocket.governed", governance.seen.containsKey("websocket"));

        // async: enqueue must return at once while the governance waits before admitting
        Call asyncCall = client.newCall(post("/v1/chat", "chat-async"));
        CompletableFuture<String> chatAsync = new CompletableFuture<>();
        long start = System.nanoTime();
        asyncCall.enqueue(callback(asyncCall, "chat-async", chatAsync, false));
        Report.put("chat-async.callerBlockedMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        chatAsync.get(10, TimeUnit.SECONDS);

        Call flakyAsync = client.newCall(post("/v1/flaky", "retry-async"));
        CompletableFuture<String> retryAsync = new CompletableFuture<>();
        flakyAsync.enqueue(callback(flakyAsync, "retry-async", retryAsync, false));
        retryAsync.get(10, TimeUnit.SECONDS);

        Call limitedAsync = client.newCall(post("/v1/limited", "limited-async"));
        CompletableFuture<String> limitedDone = new CompletableFuture<>();
        limitedAsync.enqueue(callback(limitedAsync, "limited-async", limitedDone, false));
        limitedDone.get(10, TimeUnit.SECONDS);

        Call streamAsync = client.newCall(request("/v1/stream", "stream-async").build());
        CompletableFuture<String> streamDone = new CompletableFuture<>();
        streamAsync.enqueue(callback(streamAsync, "stream-async", streamDone, true));
        streamDone.get(10, TimeUnit.SECONDS);

        // the governance throws before any attempt: the call goes through, once
        long faultsBefore = Bridge.hookFaults();
        try (Response explode =
                client.newCall(post("/v1/explode-before", "explode-before")).execute()) {
            response(
                    "explode-before",
                    explode.code(),
                    explode.header("X-Sluice-Decision"),
                    explode.body().string());
        }
        Report.put("explode-before.faults", Bridge.hookFaults() - faultsBefore);
        faultsBefore = Bridge.hookFaults();
        Call explodeAsync = client.newCall(post("/v1/explode-before", "explode-before-async"));
        CompletableFuture<String> explodeDone = new CompletableFuture<>();
        explodeAsync.enqueue(callback(explodeAsync, "explode-before-async", explodeDone, false));
        explodeDone.get(10, TimeUnit.SECONDS);
        Report.put("explode-before-async.faults", Bridge.hookFaults() - faultsBefore);

        try (Response throwGoverns = client.newCall(
                        request("/v1/throw-governs", "throw-governs").build())
                .execute()) {
            response(
                    "throw-governs",
                    throwGoverns.code(),
                    null,
                    throwGoverns.body().string());
        }

        // the governance throws after the request was sent: IOException, nothing sent twice
        try {
            client.newCall(post("/v1/explode-after", "explode-after")).execute().close();
            Report.put("explode-after.thrown", "nothing");
        } catch (IOException e) {
            Report.put("explode-after.thrown", "IOException");
        }

        // cancel of the original call reaches the in-flight attempt (sync, from another thread)
        Call slowSync = client.newCall(request("/v1/slow", "cancel-sync").build());
        new Thread(() -> {
                    sleep(500);
                    slowSync.cancel();
                })
                .start();
        long cancelStart = System.nanoTime();
        try {
            slowSync.execute().close();
            Report.put("cancel-sync.thrown", "nothing");
        } catch (IOException e) {
            Report.put("cancel-sync.thrown", "IOException");
        }
        Report.put("cancel-sync.millis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cancelStart));
        Report.put("cancel-sync.isCanceled", slowSync.isCanceled());

        // and async: cancelled while its attempt is in flight
        Call slowAsync = client.newCall(request("/v1/slow", "cancel-async").build());
        CompletableFuture<String> cancelDone = new CompletableFuture<>();
        long asyncCancelStart = System.nanoTime();
        slowAsync.enqueue(callback(slowAsync, "cancel-async", cancelDone, false));
        sleep(300);
        slowAsync.cancel();
        cancelDone.get(10, TimeUnit.SECONDS);
        Report.put("cancel-async.millis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asyncCancelStart));

        for (String scenario : new String[] {
            "chat-sync",
            "retry-sync",
            "limited-sync",
            "plain-sync",
            "stream-sync",
            "stream-early",
            "chat-async",
            "retry-async",
            "limited-async",
            "stream-async",
            "explode-before",
            "explode-after",
            "cancel-sync",
            "cancel-async"
        }) {
            ScriptedGovernance.Seen s = governance.seen.get(scenario);
            if (s != null && !scenario.startsWith("cancel") && !scenario.startsWith("limited")) {
                Report.await(() -> s.closed.get() || s.failed.get() || s.attempts.get() == 0);
            }
            Report.seen(scenario, s);
        }
    }

    private static int countEvents(BufferedSource source) throws IOException {
        int events = 0;
        for (String line; (line = source.readUtf8Line()) != null; ) {
            if (line.startsWith("data:")) {
                events++;
            }
        }
        return events;
    }

    private static Callback callback(
            Call original, String scenario, CompletableFuture<String> done, boolean streaming) {
        return new Callback() {
            @Override
            public void onFailure(Call call, IOException e) {
                Report.put(scenario + ".sameCall", call == original);
                Report.put(scenario + ".callbackThread", Thread.currentThread().getName());
                Report.put(scenario + ".failure", e.getClass().getSimpleName());
                done.complete("failed");
            }

            @Override
            public void onResponse(Call call, Response response) throws IOException {
                Report.put(scenario + ".sameCall", call == original);
                Report.put(scenario + ".callbackThread", Thread.currentThread().getName());
                try (Response r = response) {
                    String header = r.header("X-Sluice-Attempts") != null
                            ? r.header("X-Sluice-Attempts")
                            : r.header("retry-after");
                    String body = streaming
                            ? "events=" + countEvents(r.body().source())
                            : r.body().string();
                    response(scenario, r.code(), header, body);
                }
                done.complete("ok");
            }
        };
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void response(String scenario, int status, String header, String body) {
        Report.put(scenario + ".status", status);
        Report.put(scenario + ".header", header);
        Report.put(scenario + ".body", body);
    }
}
