package dev.sluice.agent.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A loopback HTTP server standing in for an LLM provider, recording every request it receives.
 * {@code /v1/chat} echoes, {@code /v1/flaky} answers 503 once per test id then 200,
 * {@code /v1/stream} streams five SSE events, {@code /v1/slow} answers after 3 s, {@code /plain}
 * is a non-LLM URL.
 */
final class RecordingServer implements AutoCloseable {

    /** One request as the server saw it. */
    static final class Received {
        final String path;
        final String testId;
        final Map<String, List<String>> headers;
        final int bodyLength;

        Received(String path, String testId, Map<String, List<String>> headers, int bodyLength) {
            this.path = path;
            this.testId = testId;
            this.headers = headers;
            this.bodyLength = bodyLength;
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "recording-server");
        t.setDaemon(true);
        return t;
    });
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> flakyCounts = new ConcurrentHashMap<>();

    RecordingServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    void reset() {
        received.clear();
        flakyCounts.clear();
    }

    List<Received> received(String testId) {
        return received.stream().filter(r -> testId.equals(r.testId)).collect(Collectors.toList());
    }

    List<Received> all() {
        return new ArrayList<>(received);
    }

    private void handle(HttpExchange exchange) {
        try {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            String testId = exchange.getRequestHeaders().getFirst("X-Test-Id");
            Map<String, List<String>> headers = new ConcurrentHashMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), new ArrayList<>(v)));
            received.add(new Received(path, testId, headers, body.length));

            if (path.startsWith("/v1/stream")) {
                exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
                exchange.sendResponseHeaders(200, 0);
                OutputStream out = exchange.getResponseBody();
                try {
                    for (int i = 1; i <= 5; i++) {
                        out.write(("data: {\"n\":" + i + "}\n\n").getBytes(StandardCharsets.UTF_8));
                        out.flush();
                        Thread.sleep(20);
                    }
                } catch (IOException | InterruptedException closedEarly) {
                    // the client closed the stream early
                }
                return;
            }
            if (path.startsWith("/v1/flaky")
                    && flakyCounts
                                    .computeIfAbsent(String.valueOf(testId), k -> new AtomicInteger())
                                    .incrementAndGet()
                            == 1) {
                respond(exchange, 503, "{\"error\":\"overloaded\"}");
                return;
            }
            if (path.startsWith("/v1/slow")) {
                try {
                    Thread.sleep(3000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            respond(exchange, 200, "{\"echo\":" + body.length + ",\"path\":\"" + path + "\"}");
        } catch (IOException e) {
            // client went away
        } finally {
            exchange.close();
        }
    }

    private static void respond(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
