package dev.sluice.benchmarks.overhead;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback provider that costs the machine as little as a provider can: the first call of each
 * kind (method, path, streamed or not) goes to the simulator and its answer (status, headers, body)
 * is kept; every later call of that kind gets the kept answer back from the server's own
 * dispatcher thread (or a few threads, for several callers), with no matching, templating or
 * bookkeeping.
 *
 * <p>Why: on a 2-core machine the simulator's work per call (Jetty, WireMock's matching, the
 * simulated limits) runs beside the caller and is most of what makes a call's tail, and that
 * tail hides what Sluice adds. The answers are the simulator's own bytes, rate-limit headers and
 * usage included, so Sluice does all its work on each; only the headers' counts stay the same
 * from call to call (the limits are far above what the load asks, so they say "plenty left").
 *
 * <p>The JDK's server reads {@code sun.net.httpserver.nodelay} once: set it to {@code true} before
 * {@link #start} (as {@link CallOverhead} does), or small answers wait for Nagle's timer.
 */
final class ReplayingProvider implements AutoCloseable {

    /**
     * Hop-by-hop and framing headers, not copied either way: each server and client sets its own
     * (copying them would contradict the replayed body's length, or upgrade the simulator's call).
     */
    private static final Set<String> NOT_COPIED = Set.of(
            "content-length",
            "transfer-encoding",
            "connection",
            "date",
            "keep-alive",
            ":status",
            "host",
            "upgrade",
            "http2-settings",
            "expect");

    private final HttpServer server;
    private final HttpClient toSimulator =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final int simulatorPort;
    private final Map<String, Answer> kept = new ConcurrentHashMap<>();

    /** Answers from this many threads; null: from the server's dispatcher thread. */
    private final ExecutorService answering;

    private ReplayingProvider(HttpServer server, int simulatorPort, ExecutorService answering) {
        this.server = server;
        this.simulatorPort = simulatorPort;
        this.answering = answering;
    }

    /**
     * @param threads threads that answer: 1 answers from the dispatcher thread (one caller never
     *     waits for another there); more, for several callers, or their calls queue at the provider
     */
    static ReplayingProvider start(int simulatorPort, int threads) throws IOException {
        if (threads < 1) {
            throw new IllegalArgumentException("replay threads must be at least 1, was " + threads);
        }
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4_096);
        ExecutorService answering = threads == 1 ? null : Executors.newFixedThreadPool(threads);
        ReplayingProvider provider = new ReplayingProvider(server, simulatorPort, answering);
        server.createContext("/", provider::answer);
        server.setExecutor(answering);
        server.start();
        return provider;
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** How many kinds of call were recorded: each is one call the simulator answered. */
    int kinds() {
        return kept.size();
    }

    private void answer(HttpExchange exchange) throws IOException {
        try {
            byte[] request;
            try (InputStream in = exchange.getRequestBody()) {
                request = in.readAllBytes();
            }
            String text = new String(request, StandardCharsets.ISO_8859_1);
            boolean streamed = text.contains("\"stream\":true") || text.contains("\"stream\": true");
            String kind =
                    exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " " + streamed;
            Answer answer = kept.get(kind);
            if (answer == null) {
                answer = record(exchange, request);
                kept.putIfAbsent(kind, answer);
            }
            exchange.getResponseHeaders().putAll(answer.headers);
            exchange.sendResponseHeaders(answer.status, answer.body.length == 0 ? -1 : answer.body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer.body);
            }
        } finally {
            exchange.close();
        }
    }

    private Answer record(HttpExchange exchange, byte[] request) throws IOException {
        HttpRequest.Builder forward = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + simulatorPort + exchange.getRequestURI()))
                .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(request));
        exchange.getRequestHeaders().forEach((name, values) -> {
            if (!NOT_COPIED.contains(name.toLowerCase(Locale.ROOT))) {
                values.forEach(v -> forward.header(name, v));
            }
        });
        HttpResponse<byte[]> answered;
        try {
            answered = toSimulator.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the simulator answered", e);
        }
        com.sun.net.httpserver.Headers headers = new com.sun.net.httpserver.Headers();
        answered.headers().map().forEach((name, values) -> {
            if (!NOT_COPIED.contains(name.toLowerCase(Locale.ROOT))) {
                headers.put(name, List.copyOf(values));
            }
        });
        return new Answer(answered.statusCode(), headers, answered.body());
    }

    @Override
    public void close() {
        server.stop(0);
        if (answering != null) {
            answering.shutdownNow();
        }
    }

    private static final class Answer {
        final int status;
        final com.sun.net.httpserver.Headers headers;
        final byte[] body;

        Answer(int status, com.sun.net.httpserver.Headers headers, byte[] body) {
            this.status = status;
            this.headers = headers;
            this.body = body;
        }
    }
}
