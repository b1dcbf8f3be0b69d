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
    void aRerouteChangesTheAddressTheHeadersItNamesAndTheBodyAndKeepsTheRest() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(CHAT)
                .header("Authorization", "Bearer sk-east")
                .header("X-Sluice-Class", "interactive")
                .header("OpenAI-Beta", "assistants=v2")
                .timeout(Duration.ofSeconds(7))
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"a\"}"))
                .build();
        JdkHttpTransport t = transport(request);
        assertThat(t.canReroute()).isTrue();
        Map<String, String> set = new java.util.HashMap<>();
        set.put("authorization", "Bearer sk-west");
        set.put("host", null);
        t.reroute("https://west.example.com/v1/chat/completions", set, null);
        HttpRequest moved = t.outgoing();
        assertThat(moved.uri()).isEqualTo(URI.create("https://west.example.com/v1/chat/completions"));
        assertThat(moved.headers().allValues("authorization")).containsExactly("Bearer sk-west");
        assertThat(moved.headers().firstValue("OpenAI-Beta")).hasValue("assistants=v2");
        assertThat(moved.headers().firstValue("X-Sluice-Class")).isEmpty();
        assertThat(moved.timeout()).hasValue(Duration.ofSeconds(7));
        assertThat(moved.bodyPublisher().orElseThrow().contentLength()).isEqualTo(13);
        assertThat(t.url())
                .as("the call's own URL, for the next route's rewrite")
                .isEqualTo(CHAT.toString());

        t.reroute(
                "https://west.example.com/v1/chat/completions",
                Map.of(),
                "{\"model\":\"bb\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(t.outgoing().bodyPublisher().orElseThrow().contentLength()).isEqualTo(14);
    }

    @Test
    void aSuccessTellsItsHeadersToTheObserverBeforeItsBody() throws Exception {
        byte[] answer = "{\"usage\":{\"total_tokens\":3}}".getBytes(StandardCharsets.UTF_8);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().add("x-ratelimit-remaining-requests", "4");
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
            JdkHttpTransport t = transport(HttpRequest.newBuilder(uri)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}"))
                    .build());
            List<String> seen = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> ended = new CompletableFuture<>();
            BodyObserver observer = new BodyObserver() {
                @Override
                public void onHeaders(Map<String, List<String>> headers) {
                    seen.add("headers " + headers.get("x-ratelimit-remaining-requests"));
                }

                @Override
                public void onBytes(byte[] chunk, int offset, int length) {
                    seen.add("bytes");
                }

                @Override
                public void onEnd() {
                    seen.add("end");
                    ended.complete(null);
                }

                @Override
                public void onFailure(Throwable failure) {
                    ended.completeExceptionally(failure);
                }

                @Override
                public void onClose() {}
            };
            HttpResponse<?> response = (HttpResponse<?>) t.send(observer);
            ended.get(10, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(seen.get(0)).isEqualTo("headers [4]");
            assertThat(seen).contains("bytes").endsWith("end");
        } finally {
            server.stop(0);
        }
    }
}
