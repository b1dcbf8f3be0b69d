package dev.sluice.it.providers;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Vertex AI's {@code generateContent} on loopback, as small as the test needs (the simulator has no
 * Vertex profile): {@code POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent}
 * answers Gemini's JSON with {@code usageMetadata}; a token bucket of {@code capacity} requests per
 * {@code windowMillis} (full at start, refilled continuously) refuses the rest with Vertex's own
 * 429: {@code RESOURCE_EXHAUSTED} wrapped in a one-element array, no {@code RetryInfo}, no
 * rate-limit headers.
 */
final class VertexStub implements AutoCloseable {

    private static final Pattern PATH =
            Pattern.compile("/v1/projects/[^/]+/locations/[^/]+/publishers/google/models/[^/:]+:generateContent");
    private static final byte[] OK = ("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":"
                    + "\"Hello, integration test.\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":12,"
                    + "\"candidatesTokenCount\":5,\"totalTokenCount\":17},\"modelVersion\":\"gemini-2.0-flash-001\"}")
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] EXHAUSTED = ("[{\"error\":{\"code\":429,\"message\":\"Resource exhausted. Please try"
                    + " again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for"
                    + " more details.\",\"status\":\"RESOURCE_EXHAUSTED\"}}]")
            .getBytes(StandardCharsets.UTF_8);

    final AtomicLong arrivals = new AtomicLong();
    final AtomicLong admitted = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();

    private final HttpServer server;
    private final double capacity;
    private final double perNano;
    private double level;
    private long lastNanos = System.nanoTime();

    VertexStub(long capacity, long windowMillis) throws IOException {
        this.capacity = capacity;
        this.perNano = capacity / (windowMillis * 1e6);
        this.level = capacity;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/", this::handle);
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            if (!exchange.getRequestMethod().equals("POST")
                    || !PATH.matcher(exchange.getRequestURI().getPath()).matches()) {
                send(
                        exchange,
                        404,
                        "{\"error\":{\"code\":404,\"status\":\"NOT_FOUND\"}}".getBytes(StandardCharsets.UTF_8));
                return;
            }
            arrivals.incrementAndGet();
            if (take()) {
                admitted.incrementAndGet();
                send(exchange, 200, OK);
            } else {
                rejected.incrementAndGet();
                send(exchange, 429, EXHAUSTED);
            }
        }
    }

    private synchronized boolean take() {
        long now = System.nanoTime();
        level = Math.min(capacity, level + (now - lastNanos) * perNano);
        lastNanos = now;
        if (level < 1) {
            return false;
        }
        level -= 1;
        return true;
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json; charset=UTF-8");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
