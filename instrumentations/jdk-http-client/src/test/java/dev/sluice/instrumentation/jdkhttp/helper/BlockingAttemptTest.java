package dev.sluice.instrumentation.jdkhttp.helper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.bootstrap.BodyObserver;
import java.io.ByteArrayOutputStream;
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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A blocking attempt against a real server on loopback: what the governor is shown, per body handler. */
class BlockingAttemptTest {

    private static final String ANSWER =
            "{\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3},\"text\":\"h\u00e9llo\"}";

    private HttpServer server;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/ok", exchange -> {
            byte[] body = ANSWER.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.createContext("/broken", exchange -> {
            exchange.sendResponseHeaders(200, 1_000); // announces more than it sends, then closes
            exchange.getResponseBody().write("{\"usage\":".getBytes(StandardCharsets.UTF_8));
            exchange.getResponseBody().flush();
            exchange.close();
        });
        server.createContext("/refused", exchange -> {
            byte[] body = "{\"error\":\"slow down\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(429, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path))
                .build();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static HttpResponse.BodyHandler<Object> handler(HttpResponse.BodyHandler<?> h) {
        return (HttpResponse.BodyHandler) h;
    }

    @Test
    void theJdkBufferingHandlersAreLeftAloneAndTheirBodyShownOnceSendReturns() throws Exception {
        for (HttpResponse.BodyHandler<?> own :
                List.of(HttpResponse.BodyHandlers.ofString(), HttpResponse.BodyHandlers.ofByteArray())) {
            Recorder seen = new Recorder();
            BlockingAttempt attempt = new BlockingAttempt(handler(own), seen);
            HttpResponse<Object> response = client.send(request("/ok"), attempt);
            assertThat(seen.events)
                    .as("nothing seen while the JDK reads its own subscriber's body")
                    .isEmpty();
            attempt.observeBuffered(response);
            assertThat(seen.bytes()).isEqualTo(ANSWER);
            assertThat(seen.events).containsExactly("bytes", "end");
            Object body = response.body();
            assertThat(body instanceof String ? body : new String((byte[]) body, StandardCharsets.UTF_8))
                    .isEqualTo(ANSWER);
        }
    }

    @Test
    void anyOtherHandlerIsTappedAsTheApplicationReads() throws Exception {
        Recorder seen = new Recorder();
        BlockingAttempt attempt = new BlockingAttempt(handler(HttpResponse.BodyHandlers.ofInputStream()), seen);
        HttpResponse<Object> response = client.send(request("/ok"), attempt);
        attempt.observeBuffered(response); // nothing to add: the tap shows what is read
        try (InputStream in = (InputStream) response.body()) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(ANSWER);
        }
        assertThat(seen.bytes()).isEqualTo(ANSWER);
        assertThat(seen.events).contains("end").doesNotContain("failure");
    }

    @Test
    void aBufferedBodyThatBreaksIsReportedBroken() {
        Recorder seen = new Recorder();
        BlockingAttempt attempt = new BlockingAttempt(handler(HttpResponse.BodyHandlers.ofString()), seen);
        assertThatThrownBy(() -> {
                    try {
                        client.send(request("/broken"), attempt);
                    } catch (IOException e) {
                        attempt.observeFailure(e);
                        throw e;
                    }
                })
                .isInstanceOf(IOException.class);
        assertThat(seen.events).containsExactly("failure");
    }

    @Test
    void aRefusalIsBufferedForTheGovernorAndNotObserved() throws Exception {
        Recorder seen = new Recorder();
        BlockingAttempt attempt = new BlockingAttempt(handler(HttpResponse.BodyHandlers.ofString()), seen);
        HttpResponse<Object> response = client.send(request("/refused"), attempt);
        attempt.observeBuffered(response);
        assertThat(response.body()).isInstanceOf(byte[].class);
        assertThat(seen.events).isEmpty();
    }

    private static final class Recorder implements BodyObserver {
        final List<String> events = new ArrayList<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void onBytes(byte[] chunk, int offset, int length) {
            if (events.isEmpty() || !events.get(events.size() - 1).equals("bytes")) {
                events.add("bytes");
            }
            bytes.write(chunk, offset, length);
        }

        @Override
        public synchronized void onEnd() {
            events.add("end");
        }

        @Override
        public synchronized void onFailure(Throwable failure) {
            events.add("failure");
        }

        @Override
        public synchronized void onClose() {
            events.add("close");
        }

        synchronized String bytes() {
            return bytes.toString(StandardCharsets.UTF_8);
        }
    }
}
