package dev.sluice.core.provider.openai;

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

/** A JDK HTTP server on loopback that answers every request with one canned answer and remembers what it was sent. */
final class LoopbackProvider implements AutoCloseable {

    /** One request as the server saw it. */
    static final class Seen {
        final String path;
        final Map<String, List<String>> headers;
        final byte[] body;

        Seen(String path, Map<String, List<String>> headers, byte[] body) {
            this.path = path;
            this.headers = headers;
            this.body = body;
        }
    }

    private final HttpServer server;
    final AtomicInteger hits = new AtomicInteger();
    final List<Seen> seen = new CopyOnWriteArrayList<>();

    LoopbackProvider(int status, Map<String, List<String>> headers, byte[] body) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> answer(exchange, status, headers, body));
        server.start();
    }

    private void answer(HttpExchange exchange, int status, Map<String, List<String>> headers, byte[] body)
            throws IOException {
        hits.incrementAndGet();
        seen.add(new Seen(
                exchange.getRequestURI().getPath(),
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

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
