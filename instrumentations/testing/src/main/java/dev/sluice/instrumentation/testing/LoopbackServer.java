package dev.sluice.instrumentation.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP/1.1 server on a free loopback port: it records every request it receives (method,
 * path, headers, body) and answers each with the next {@link Reply} it was given, or with a 200
 * and a small JSON body when none is left.
 */
public final class LoopbackServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "loopback-server");
        t.setDaemon(true);
        return t;
    });
    private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
    private final List<Recorded> requests = new CopyOnWriteArrayList<>();
    /** Released when the server closes: no answer held back outlives its test. */
    private final CountDownLatch closing = new CountDownLatch(1);

    private LoopbackServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/", this::answer);
        server.setExecutor(threads);
        server.start();
    }

    /** A server of the calling test's own, started. */
    public static LoopbackServer start() {
        try {
            return new LoopbackServer();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start a server on loopback", e);
        }
    }

    /** The absolute URL of {@code path} on this server. */
    public String url(String path) {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":"
                + server.getAddress().getPort() + path;
    }

    /** The next request gets this reply (replies are used in the order given). */
    public LoopbackServer reply(Reply reply) {
        replies.add(reply);
        return this;
    }

    /** Every request received so far, in order. */
    public List<Recorded> requests() {
        return new ArrayList<>(requests);
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        threads.shutdownNow();
    }

    private void answer(HttpExchange e) {
        try {
            byte[] body;
            try (InputStream in = e.getRequestBody()) {
                body = in.readAllBytes();
            }
            Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            e.getRequestHeaders().forEach((name, values) -> headers.put(name, List.copyOf(values)));
            Reply reply = replies.poll();
            if (reply == null) {
                reply = Reply.status(200).json("{\"ok\":true}");
            }
            requests.add(new Recorded(e.getRequestMethod(), e.getRequestURI().getPath(), headers, body));
            if (reply.held != null) {
                reply.received.countDown();
                awaitEither(reply.held);
            }
            for (String[] h : reply.headers) {
                e.getResponseHeaders().add(h[0], h[1]);
            }
            if (reply.chunks.isEmpty()) {
                e.sendResponseHeaders(reply.status, -1);
                return;
            }
            e.sendResponseHeaders(reply.status, 0); // chunked: each part written and flushed on its own
            OutputStream out = e.getResponseBody();
            for (byte[] chunk : reply.chunks) {
                out.write(chunk);
                out.flush();
            }
        } catch (IOException | RuntimeException clientLeft) {
            // a client that went away (a cancelled or discarded attempt) is part of the tests
        } finally {
            e.close();
        }
    }

    private void awaitEither(CountDownLatch held) {
        try {
            for (int i = 0; i < 300 && held.getCount() > 0 && closing.getCount() > 0; i++) {
                held.await(100, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One request as the server received it. */
    public static final class Recorded {
        public final String method;
        public final String path;
        /** Looked up by name in any case. */
        public final Map<String, List<String>> headers;

        public final byte[] body;

        Recorded(String method, String path, Map<String, List<String>> headers, byte[] body) {
            this.method = method;
            this.path = path;
            this.headers = Collections.unmodifiableMap(headers);
            this.body = body;
        }

        /** The values of a header, none when absent. */
        public List<String> header(String name) {
            List<String> values = headers.get(name);
            return values == null ? List.of() : values;
        }

        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** Names of the headers, lower case. */
        public List<String> headerNames() {
            List<String> names = new ArrayList<>();
            for (String name : headers.keySet()) {
                names.add(name.toLowerCase(Locale.ROOT));
            }
            return names;
        }
    }

    /** What the server answers one request with. */
    public static final class Reply {
        final int status;
        final List<String[]> headers = new ArrayList<>();
        final List<byte[]> chunks = new ArrayList<>();
        CountDownLatch held;
        final CountDownLatch received = new CountDownLatch(1);

        private Reply(int status) {
            this.status = status;
        }

        public static Reply status(int status) {
            return new Reply(status);
        }

        /** Adds a header (again for a second value). */
        public Reply header(String name, String value) {
            headers.add(new String[] {name, value});
            return this;
        }

        /** A JSON body, sent in one chunk. */
        public Reply json(String body) {
            return header("Content-Type", "application/json").chunks(body);
        }

        /** The body, sent in these parts, each flushed on its own. */
        public Reply chunks(String... parts) {
            for (String part : parts) {
                chunks.add(part.getBytes(StandardCharsets.UTF_8));
            }
            return this;
        }

        /** The answer waits until {@code release} is counted down (or the server closes). */
        public Reply heldUntil(CountDownLatch release) {
            this.held = release;
            return this;
        }

        /** Whether the request this reply answers has arrived (for a held reply). */
        public boolean awaitRequest(long millis) throws InterruptedException {
            return received.await(millis, TimeUnit.MILLISECONDS);
        }
    }
}
