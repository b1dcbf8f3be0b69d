package dev.sluice.core.provider;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A JDK HTTP server on loopback that answers every request with one canned answer and remembers
 * what it was sent: enough to run a real SDK against an adapter's local rejections and stream
 * fixtures.
 */
public final class LoopbackServer implements AutoCloseable {

    /** One request as the server saw it. */
    public static final class Seen {
        public final String method;
        public final String path;
        public final String query;
        public final Map<String, List<String>> headers;
        public final byte[] body;

        Seen(String method, String path, String query, Map<String, List<String>> headers, byte[] body) {
            this.method = method;
            this.path = path;
            this.query = query;
            this.headers = headers;
            this.body = body;
        }

        /** The request as an adapter reads it, sent to {@code origin} (e.g. {@code https://api.anthropic.com}). */
        public ProviderRequest asRequest(String origin) {
            return ProviderRequest.of(
                    method, origin + path + (query == null ? "" : "?" + query), Headers.of(headers), body);
        }
    }

    private final HttpServer server;
    public final AtomicInteger hits = new AtomicInteger();
    public final List<Seen> seen = new CopyOnWriteArrayList<>();

    public LoopbackServer(int status, Map<String, List<String>> headers, byte[] body) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> answer(exchange, status, headers, body));
        server.start();
    }

    /** The same answer as a {@link LocalAnswer}. */
    public LoopbackServer(LocalAnswer answer) throws IOException {
        this(answer.status(), answer.headers(), answer.body());
    }

    private void answer(HttpExchange exchange, int status, Map<String, List<String>> headers, byte[] body)
            throws IOException {
        hits.incrementAndGet();
        seen.add(new Seen(
                exchange.getRequestMethod(),
                exchange.getRequestURI().getRawPath(),
                exchange.getRequestURI().getRawQuery(),
                Map.copyOf(exchange.getRequestHeaders()),
                exchange.getRequestBody().readAllBytes()));
        headers.forEach((name, values) -> exchange.getResponseHeaders().put(name, values));
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            // Dribble the body so the SDK's SSE reader meets events split across reads, as on a real network.
            for (int i = 0; i < body.length; i += 97) {
                out.write(body, i, Math.min(97, body.length - i));
                out.flush();
            }
        }
    }

    /** {@code http://127.0.0.1:<port>}, without a path. */
    public String origin() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
