package dev.sluice.instrumentation.jdkhttp.helper;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.bootstrap.BodyObserver;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JdkHttpTransportTest {

    private static final URI CHAT = URI.create("https://api.openai.com/v1/chat/completions");

    private static JdkHttpTransport transport(HttpRequest request) throws Exception {
        @SuppressWarnings({"unchecked", "rawtypes"})
        HttpResponse.BodyHandler<Object> handler = (HttpResponse.BodyHandler) HttpResponse.BodyHandlers.ofString();
        JdkHttpTransport t = new JdkHttpTransport(HttpClient.newHttpClient(), request, handler, null);
        t.collectBody().get();
        return t;
    }

    @Test
    void aRequestWithAnInMemoryBodyAndNoPrivateHeaderIsSentAsItCame() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(CHAT)
                .header("authorization", "Bearer sk-test")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}"))
                .build();
        assertThat(transport(request).outgoing()).isSameAs(request);
    }

    @Test
    void aPrivateHeaderOrABodyThatCannotBeReplayedMakesARequestOfItsOwn() throws Exception {
        HttpRequest tenant = HttpRequest.newBuilder(CHAT)
                .header("authorization", "Bearer sk-test")
                .header("X-Sluice-Tenant", "acme")
                .timeout(Duration.ofSeconds(7))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}"))
                .build();
        HttpRequest stripped = transport(tenant).outgoing();
        assertThat(stripped).isNotSameAs(tenant);
        assertThat(stripped.headers().firstValue("X-Sluice-Tenant")).isEmpty();
        assertThat(stripped.headers().firstValue("authorization")).hasValue("Bearer sk-test");
        assertThat(stripped.timeout()).hasValue(Duration.ofSeconds(7));
        assertThat(stripped.bodyPublisher().orElseThrow().contentLength()).isEqualTo(13);

        byte[] body = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);
        HttpRequest streamed = HttpRequest.newBuilder(CHAT)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body)))
                .build();
        JdkHttpTransport t = transport(streamed);
        assertThat(t.outgoing()).isNotSameAs(streamed);
        assertThat(t.requestBody()).isEqualTo(body);
    }

    @Test
    void aSuccessGivesTheObserverItsHeadersBeforeItsBodyAndARefusalGivesItNothing() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = "{\"usage\":{}}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("x-ratelimit-remaining-requests", "9");
            exchange.sendResponseHeaders(exchange.getRequestURI().getPath().endsWith("/busy") ? 429 : 200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            Events answered = new Events();
            transport(post(base + "/v1/chat/completions")).send(answered);
            answered.over.get(10, TimeUnit.SECONDS);
            assertThat(answered.seen).containsExactly("headers [9]", "bytes", "end");

            Events refused = new Events();
            transport(post(base + "/v1/busy")).send(refused);
            assertThat(refused.seen)
                    .as("a refusal's body is buffered for the engine, not tapped")
                    .isEmpty();
        } finally {
            server.stop(0);
        }
    }

    private static HttpRequest post(String uri) {
        return HttpRequest.newBuilder(URI.create(uri))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}"))
                .build();
    }

    /** What the observer saw, in order (consecutive chunks of bytes as one). */
    private static final class Events implements BodyObserver {
        final List<String> seen = new CopyOnWriteArrayList<>();
        final CompletableFuture<Void> over = new CompletableFuture<>();

        @Override
        public void onHeaders(Map<String, List<String>> headers) {
            seen.add("headers " + headers.get("x-ratelimit-remaining-requests"));
        }

        @Override
        public void onBytes(byte[] chunk, int offset, int length) {
            if (seen.isEmpty() || !seen.get(seen.size() - 1).equals("bytes")) {
                seen.add("bytes");
            }
        }

        @Override
        public void onEnd() {
            seen.add("end");
            over.complete(null);
        }

        @Override
        public void onFailure(Throwable failure) {
            seen.add("failure");
            over.complete(null);
        }

        @Override
        public void onClose() {
            seen.add("close");
        }
    }
}
