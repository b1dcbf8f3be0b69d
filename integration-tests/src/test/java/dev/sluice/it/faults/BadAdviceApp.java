package dev.sluice.it.faults;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.ChatModel;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Runs every hooked entry point (JDK HttpClient send and sendAsync; OkHttp execute, enqueue and
 * cancel; openai-java over OkHttp, whose retry loop Sluice's advice stands aside) against a
 * deterministic OpenAI-shaped server in this JVM, once per injected fault, and prints one
 * {@code ROW} line per call: what the application saw, how many attempts the server saw, how many
 * faults Sluice counted, whether the fault fired, and what the governor still held afterwards.
 *
 * <p>Modes: {@code baseline} (run without the agent: the outcomes to match), {@code matrix}
 * (with the agent: {@link FaultyGovernance} behind the bridge, each fault in turn), and
 * {@code factory} (with the agent: the bridge's hook factory throws for every hooked class).
 *
 * <p>The server is reached as {@code http://api.openai.com:<port>} through a hosts file, so Sluice
 * recognises OpenAI with no config at all.
 */
public final class BadAdviceApp {

    enum Op {
        JDK_SEND,
        JDK_SEND_ASYNC,
        OKHTTP_EXECUTE,
        OKHTTP_ENQUEUE,
        OKHTTP_CANCEL,
        OPENAI_SDK
    }

    /** What the server answers: 200, 400, 503 (retryable), nothing listening, or a slow 200 to cancel. */
    enum Kind {
        OK,
        BAD,
        BUSY,
        REFUSED,
        SLOW
    }

    private static final String OK_BODY =
            "{\"id\":\"chatcmpl-fixed\",\"object\":\"chat.completion\",\"created\":1700000000,"
                    + "\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                    + "\"content\":\"hello from the fixed provider\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":5,\"total_tokens\":14}}";
    private static final String BAD_BODY =
            "{\"error\":{\"message\":\"bad request, fixed\",\"type\":\"invalid_request_error\","
                    + "\"param\":null,\"code\":null}}";
    private static final String BUSY_BODY = "{\"error\":{\"message\":\"overloaded, fixed\",\"type\":\"server_error\","
            + "\"param\":null,\"code\":null}}";
    private static final String REQUEST =
            "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]," + "\"max_tokens\":16}";
    private static final long CALL_TIMEOUT_SECONDS = 15;
    private static final ObjectMapper JSON =
            new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();
    private final String base;
    private final String refusedBase;
    private final HttpClient jdk = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final OkHttpClient okhttp = new OkHttpClient();
    private final OpenAIClient sdk;
    private final OpenAIClient sdkRefused;

    private BadAdviceApp(int port, int closedPort) {
        base = "http://api.openai.com:" + port;
        refusedBase = "http://api.openai.com:" + closedPort;
        sdk = OpenAIOkHttpClient.builder()
                .baseUrl(base + "/v1")
                .apiKey("sk-test-faults")
                .build();
        sdkRefused = OpenAIOkHttpClient.builder()
                .baseUrl(refusedBase + "/v1")
                .apiKey("sk-test-faults")
                .build();
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
        ExecutorService serverThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fixed-provider");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(serverThreads);
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        BadAdviceApp app = new BadAdviceApp(server.getAddress().getPort(), closedPort);
        server.createContext("/v1/chat/completions", app::answer);
        server.start();
        try {
            switch (mode) {
                case "baseline":
                    app.runAll(Probe.NONE, "none");
                    break;
                case "matrix":
                    app.matrix();
                    break;
                case "factory":
                    app.factoryFaults();
                    break;
                default:
                    throw new IllegalArgumentException(mode);
            }
        } finally {
            server.stop(0);
            serverThreads.shutdownNow();
        }
        System.out.println("DONE");
        System.exit(0); // SDK and OkHttp threads must not keep the JVM
    }

    // ------------------------------------------------------------------ the provider

    private void answer(HttpExchange exchange) throws IOException {
        String id = exchange.getRequestHeaders().getFirst("x-test-id");
        String kind = exchange.getRequestHeaders().getFirst("x-test-kind");
        exchange.getRequestBody().readAllBytes();
        if (id != null) {
            attempts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        }
        int status = 200;
        String body = OK_BODY;
        if ("BAD".equals(kind)) {
            status = 400;
            body = BAD_BODY;
        } else if ("BUSY".equals(kind)) {
            status = 503;
            body = BUSY_BODY;
        } else if ("SLOW".equals(kind)) {
            try {
                Thread.sleep(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("content-type", "application/json");
        exchange.getResponseHeaders().add("x-request-id", "req-fixed");
        try {
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        } catch (IOException cancelled) {
            // the client went away (a cancelled call)
        } finally {
            exchange.close();
        }
    }

    // ------------------------------------------------------------------ runs

    private void matrix() throws Exception {
        Probe probe = Probe.sluice();
        probe.installFaultyGovernance();
        call(Op.JDK_SEND, Kind.OK, "warm-up"); // the Provider bean appears once a call was governed
        probe.awaitBeans();
        for (String fault : probe.faults()) {
            runAll(probe, fault);
        }
    }

    /** The bridge's hook factory fails for every class it is asked about: each hooked class passes through. */
    private void factoryFaults() throws Exception {
        Probe probe = Probe.sluice();
        probe.installFaultyHookFactory();
        probe.awaitBeans();
        runAll(probe, "hook_factory_throws");
        System.out.println("FACTORY_CALLS " + probe.fired());
    }

    /** Every call, with {@code fault} injected before each (a name from {@link Probe#faults()}). */
    private void runAll(Probe probe, String fault) throws Exception {
        for (Op op : Op.values()) {
            for (Kind kind : kinds(op)) {
                probe.inject(fault);
                row(probe, fault, op, kind);
            }
        }
    }

    private static List<Kind> kinds(Op op) {
        switch (op) {
            case OKHTTP_CANCEL:
                return List.of(Kind.SLOW);
            case OPENAI_SDK:
                return List.of(
                        Kind.OK, Kind.BAD); // the SDK's own retries of 503 and refusals take seconds without the agent
            default:
                return List.of(Kind.OK, Kind.BAD, Kind.BUSY, Kind.REFUSED);
        }
    }

    private void row(Probe probe, String fault, Op op, Kind kind) throws Exception {
        String id = "call-" + ids.incrementAndGet();
        long hookFaultsBefore = probe.hookFaults();
        long sluiceFaultsBefore = probe.sluiceFaults();
        long started = System.nanoTime();
        String outcome;
        try {
            outcome = call(op, kind, id);
        } catch (Throwable t) {
            outcome = "app saw " + describe(t);
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        int fired = probe.fired();
        probe.inject("none");
        long hookFaults = probe.hookFaults() - hookFaultsBefore;
        long sluiceFaults = probe.sluiceFaults() - sluiceFaultsBefore;
        String held = probe.awaitGovernorIdle();
        AtomicInteger seen = attempts.get(id);
        System.out.println(String.join(
                "\t",
                "ROW",
                fault,
                op.name(),
                kind.name(),
                outcome,
                String.valueOf(seen == null ? 0 : seen.get()),
                String.valueOf(hookFaults),
                String.valueOf(sluiceFaults),
                String.valueOf(fired),
                held,
                String.valueOf(millis)));
    }

    private String call(Op op, Kind kind, String id) throws Exception {
        String url = (kind == Kind.REFUSED ? refusedBase : base) + "/v1/chat/completions";
        switch (op) {
            case JDK_SEND: {
                HttpResponse<String> r = jdk.send(jdkRequest(url, kind, id), HttpResponse.BodyHandlers.ofString());
                return "status=" + r.statusCode() + " body=" + normalize(r.body());
            }
            case JDK_SEND_ASYNC: {
                try {
                    HttpResponse<String> r = jdk.sendAsync(
                                    jdkRequest(url, kind, id), HttpResponse.BodyHandlers.ofString())
                            .get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    return "status=" + r.statusCode() + " body=" + normalize(r.body());
                } catch (ExecutionException e) {
                    return "future failed with " + describe(e.getCause());
                } catch (TimeoutException e) {
                    return "HUNG: the future did not complete in " + CALL_TIMEOUT_SECONDS + " s";
                }
            }
            case OKHTTP_EXECUTE: {
                try (Response r = okhttp.newCall(okRequest(url, kind, id)).execute()) {
                    return "status=" + r.code() + " body=" + normalize(r.body().string());
                }
            }
            case OKHTTP_ENQUEUE:
            case OKHTTP_CANCEL: {
                CountDownLatch done = new CountDownLatch(1);
                AtomicReference<String> result = new AtomicReference<>();
                Call call = okhttp.newCall(okRequest(url, kind, id));
                call.enqueue(new Callback() {
                    @Override
                    public void onFailure(Call c, IOException e) {
                        // a cancelled call fails with some IOException, which one depends on when the cancel lands
                        result.set("onFailure "
                                + (op == Op.OKHTTP_CANCEL
                                        ? IOException.class.getName()
                                        : e.getClass().getName()) + (c == call ? "" : " (another Call)"));
                        done.countDown();
                    }

                    @Override
                    public void onResponse(Call c, Response r) {
                        try (r) {
                            result.set("onResponse status=" + r.code() + " body="
                                    + normalize(r.body().string()) + (c == call ? "" : " (another Call)"));
                        } catch (Throwable t) {
                            result.set("onResponse threw " + describe(t));
                        }
                        done.countDown();
                    }
                });
                if (op == Op.OKHTTP_CANCEL) {
                    awaitAttempt(id);
                    call.cancel();
                }
                if (!done.await(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    return "HUNG: no callback in " + CALL_TIMEOUT_SECONDS + " s";
                }
                return result.get();
            }
            case OPENAI_SDK: {
                ChatCompletionCreateParams params = ChatCompletionCreateParams.builder()
                        .model(ChatModel.GPT_4O_MINI)
                        .addUserMessage("hi")
                        .maxCompletionTokens(16)
                        .putAdditionalHeader("x-test-id", id)
                        .putAdditionalHeader("x-test-kind", kind.name())
                        .build();
                try {
                    ChatCompletion c = (kind == Kind.REFUSED ? sdkRefused : sdk)
                            .chat()
                            .completions()
                            .create(params);
                    return "completion content="
                            + c.choices().get(0).message().content().orElse("?");
                } catch (OpenAIServiceException e) {
                    return "threw " + e.getClass().getName() + " status=" + e.statusCode();
                }
            }
            default:
                throw new IllegalArgumentException(op.name());
        }
    }

    /** Waits until the server has the attempt, so cancelling finds the call in flight. */
    private void awaitAttempt(String id) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!attempts.containsKey(id) && System.nanoTime() < end) {
            Thread.sleep(5);
        }
    }

    private static HttpRequest jdkRequest(String url, Kind kind, String id) {
        return HttpRequest.newBuilder(URI.create(url))
                .header("authorization", "Bearer sk-test-faults")
                .header("content-type", "application/json")
                .header("x-test-id", id)
                .header("x-test-kind", kind.name())
                .timeout(Duration.ofSeconds(CALL_TIMEOUT_SECONDS))
                .POST(HttpRequest.BodyPublishers.ofString(REQUEST))
                .build();
    }

    private static Request okRequest(String url, Kind kind, String id) {
        return new Request.Builder()
                .url(url)
                .header("authorization", "Bearer sk-test-faults")
                .header("x-test-id", id)
                .header("x-test-kind", kind.name())
                .post(RequestBody.create(REQUEST, MediaType.get("application/json")))
                .build();
    }

    /**
     * The body as JSON with keys sorted and any {@code sluice} object removed: the explanation
     * Sluice adds to a provider refusal it hands back is by design, the provider's answer is not
     * to change. Anything not JSON is kept as it came.
     */
    @SuppressWarnings("unchecked")
    static String normalize(String body) {
        try {
            Object tree = JSON.readValue(body, Object.class);
            strip(tree);
            return JSON.writeValueAsString(tree);
        } catch (IOException notJson) {
            return body;
        }
    }

    @SuppressWarnings("unchecked")
    private static void strip(Object node) {
        if (node instanceof Map) {
            ((Map<String, Object>) node).remove("sluice");
            ((Map<String, Object>) node).values().forEach(BadAdviceApp::strip);
        } else if (node instanceof List) {
            ((List<Object>) node).forEach(BadAdviceApp::strip);
        }
    }

    private static String describe(Throwable t) {
        boolean injected = t != null && t.getMessage() != null && t.getMessage().startsWith("injected fault");
        return t == null
                ? "null"
                : injected
                        ? "an injected fault (" + t.getMessage() + ")"
                        : t.getClass().getName();
    }
}
