package dev.sluice.testapp;

import dev.sluice.bootstrap.Bridge;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A plain application using the JDK HttpClient, run in a forked JVM with the agent. Installs the
 * scripted governance, runs each scenario and prints what it saw.
 */
public final class JdkHttpApp {

    private static final String BODY = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private final String base;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final ScriptedGovernance governance = new ScriptedGovernance();

    private JdkHttpApp(String base) {
        this.base = base;
    }

    public static void main(String[] args) throws Exception {
        JdkHttpApp app = new JdkHttpApp("http://127.0.0.1:" + args[0]);
        Bridge.install(app.governance);
        Report.put("env.clientClass", app.client.getClass().getName());
        app.run();
        Report.environment(app.governance);
        System.exit(0);
    }

    private HttpRequest.Builder request(String path, String scenario) {
        return HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(7))
                .header("X-Test-Id", scenario)
                .header("X-Sluice-Tenant", "search")
                .header("Content-Type", "application/json");
    }

    private void run() throws Exception {
        // sync, 2xx, String body; the handler notes the module of the Sluice helper that asks it
        // for its subscriber, to report whether java.net.http exports and opens its internals to it
        Module[] tapModule = new Module[1];
        HttpResponse.BodyHandler<String> ofString = HttpResponse.BodyHandlers.ofString();
        HttpResponse<String> chat = client.send(
                request("/v1/chat", "chat-sync")
                        .POST(HttpRequest.BodyPublishers.ofString(BODY))
                        .build(),
                info -> {
                    tapModule[0] = callerModule("dev.sluice.instrumentation.jdkhttp.helper.");
                    return ofString.apply(info);
                });
        Module jdk = HttpClient.class.getModule();
        Report.put(
                "chat-sync.internalsExportedToTap",
                tapModule[0] != null && jdk.isExported("jdk.internal.net.http", tapModule[0]));
        Report.put(
                "chat-sync.internalsExportedToApp",
                jdk.isExported("jdk.internal.net.http", JdkHttpApp.class.getModule()));
        Report.put(
                "chat-sync.internalsOpenToTap",
                tapModule[0] != null && jdk.isOpen("jdk.internal.net.http", tapModule[0]));
        Report.put("chat-sync.internalsOpenToApp", jdk.isOpen("jdk.internal.net.http", JdkHttpApp.class.getModule()));
        response(
                "chat-sync",
                chat.statusCode(),
                chat.headers().firstValue("X-Sluice-Decision").orElse(null),
                chat.body());

        // sync, 503 then 200: one retry
        HttpResponse<String> flaky = client.send(
                request("/v1/flaky", "retry-sync")
                        .POST(HttpRequest.BodyPublishers.ofString(BODY))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        response(
                "retry-sync",
                flaky.statusCode(),
                flaky.headers().firstValue("X-Sluice-Attempts").orElse(null),
                flaky.body());

        // sync, local 429 replayed through the application's own handler (byte[] here)
        HttpResponse<byte[]> limited = client.send(
                request("/v1/limited", "limited-sync")
                        .POST(HttpRequest.BodyPublishers.ofString(BODY))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        response(
                "limited-sync",
                limited.statusCode(),
                limited.headers().firstValue("retry-after").orElse(null),
                new String(limited.body(), StandardCharsets.UTF_8));

        // not an LLM URL: untouched
        HttpResponse<String> plain = client.send(
                HttpRequest.newBuilder(URI.create(base + "/plain"))
                        .header("X-Test-Id", "plain-sync")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        response(
                "plain-sync",
                plain.statusCode(),
                plain.headers().firstValue("X-Sluice-Decision").orElse(null),
                plain.body());

        // streaming: SSE read line by line from an InputStream, to the end
        HttpResponse<InputStream> stream = client.send(
                request("/v1/stream", "stream-sync").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        int events = 0;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                if (line.startsWith("data:")) {
                    events++;
                }
            }
        }
        response("stream-sync", stream.statusCode(), null, "events=" + events);

        // streaming closed after the first event
        HttpResponse<InputStream> early = client.send(
                request("/v1/stream", "stream-early").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        BufferedReader reader = new BufferedReader(new InputStreamReader(early.body(), StandardCharsets.UTF_8));
        String first = reader.readLine();
        reader.close();
        response("stream-early", early.statusCode(), null, first);

        // async: the call must not block the caller while the governance waits before admitting
        long start = System.nanoTime();
        CompletableFuture<HttpResponse<String>> async = client.sendAsync(
                request("/v1/chat", "chat-async")
                        .POST(HttpRequest.BodyPublishers.ofString(BODY))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        Report.put("chat-async.callerBlockedMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        HttpResponse<String> asyncResponse = async.get(10, TimeUnit.SECONDS);
        response(
                "chat-async",
                asyncResponse.statusCode(),
                asyncResponse.headers().firstValue("X-Sluice-Decision").orElse(null),
                asyncResponse.body());

        HttpResponse<String> asyncFlaky = client.sendAsync(
                        request("/v1/flaky", "retry-async")
                                .POST(HttpRequest.BodyPublishers.ofString(BODY))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .get(10, TimeUnit.SECONDS);
        response(
                "retry-async",
                asyncFlaky.statusCode(),
                asyncFlaky.headers().firstValue("X-Sluice-Attempts").orElse(null),
                asyncFlaky.body());

        HttpResponse<String> asyncLimited = client.sendAsync(
                        request("/v1/limited", "limited-async")
                                .POST(HttpRequest.BodyPublishers.ofString(BODY))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .get(10, TimeUnit.SECONDS);
        response(
                "limited-async",
                asyncLimited.statusCode(),
                asyncLimited.headers().firstValue("retry-after").orElse(null),
                asyncLimited.body());

        // async streaming, with the three-argument sendAsync
        HttpResponse<InputStream> asyncStream = client.sendAsync(
                        request("/v1/stream", "stream-async").GET().build(),
                        HttpResponse.BodyHandlers.ofInputStream(),
                        null)
                .get(10, TimeUnit.SECONDS);
        int asyncEvents = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(asyncStream.body(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("data:")) {
                    asyncEvents++;
                }
            }
        }
        response("stream-async", asyncStream.statusCode(), null, "events=" + asyncEvents);

        // the governance throws before any attempt: the call goes through, once
        long faultsBefore = Bridge.hookFaults();
        HttpResponse<String> explode = client.send(
                request("/v1/explode-before", "explode-before")
                        .POST(HttpRequest.BodyPublishers.ofString(BODY))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        response(
                "explode-before",
                explode.statusCode(),
                explode.headers().firstValue("X-Sluice-Decision").orElse(null),
                explode.body());
        Report.put("explode-before.faults", Bridge.hookFaults() - faultsBefore);

        faultsBefore = Bridge.hookFaults();
        HttpResponse<String> explodeAsync = client.sendAsync(
                        request("/v1/explode-before", "explode-before-async")
                                .POST(HttpRequest.BodyPublishers.ofString(BODY))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .get(10, TimeUnit.SECONDS);
        response("explode-before-async", explodeAsync.statusCode(), null, explodeAsync.body());
        Report.put("explode-before-async.faults", Bridge.hookFaults() - faultsBefore);

        // governs() throws: the call goes through untouched
        HttpResponse<String> throwGoverns = client.send(
                request("/v1/throw-governs", "throw-governs").GET().build(), HttpResponse.BodyHandlers.ofString());
        response("throw-governs", throwGoverns.statusCode(), null, throwGoverns.body());

        // the governance throws after the request was sent: the caller sees an IOException, nothing is sent twice
        try {
            client.send(
                    request("/v1/explode-after", "explode-after")
                            .POST(HttpRequest.BodyPublishers.ofString(BODY))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            Report.put("explode-after.thrown", "nothing");
        } catch (IOException e) {
            Report.put("explode-after.thrown", "IOException");
        }

        // the application cancels an async call while its attempt is in flight
        CompletableFuture<HttpResponse<String>> slow = client.sendAsync(
                request("/v1/slow", "cancel-async").GET().build(), HttpResponse.BodyHandlers.ofString());
        Thread.sleep(300);
        slow.cancel(true);
        Report.put("cancel-async.cancelled", slow.isCancelled());

        Thread.sleep(50);
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
            "cancel-async"
        }) {
            ScriptedGovernance.Seen s = governance.seen.get(scenario);
            if (s != null && !scenario.startsWith("cancel") && !scenario.startsWith("limited")) {
                Report.await(() -> s.ended.get() || s.closed.get() || s.failed.get() || s.attempts.get() == 0);
            }
            Report.seen(scenario, s);
        }
    }

    /** The module of the nearest caller whose class is in {@code packagePrefix}, or null. */
    private static Module callerModule(String packagePrefix) {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                .walk(frames -> frames.map(StackWalker.StackFrame::getDeclaringClass)
                        .filter(c -> c.getName().startsWith(packagePrefix))
                        .findFirst()
                        .map(Class::getModule)
                        .orElse(null));
    }

    private static void response(String scenario, int status, String header, String body) {
        Report.put(scenario + ".status", status);
        Report.put(scenario + ".header", header);
        Report.put(scenario + ".body", body);
    }
}
