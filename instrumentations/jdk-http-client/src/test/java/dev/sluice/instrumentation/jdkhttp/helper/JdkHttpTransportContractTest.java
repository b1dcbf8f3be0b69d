package dev.sluice.instrumentation.jdkhttp.helper;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.HttpTransportContract;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link JdkHttpTransport} keeps the transport contract. The application asks for its bodies as an
 * {@code InputStream}: a body it can leave unread, close, or drop.
 */
class JdkHttpTransportContractTest extends HttpTransportContract {

    private HttpClient client;
    /** The future each call's caller holds, which it cancels. */
    private final Map<HttpTransport, CompletableFuture<Object>> callers = new ConcurrentHashMap<>();

    @BeforeEach
    void client() {
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @Override
    protected HttpTransport transport(ApplicationCall call) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(call.url));
        for (String[] h : call.headers) {
            request.header(h[0], h[1]);
        }
        if (call.body == null) {
            request.method(call.method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", call.contentType);
            request.method(call.method, HttpRequest.BodyPublishers.ofByteArray(call.body));
        }
        @SuppressWarnings({"unchecked", "rawtypes"})
        HttpResponse.BodyHandler<Object> handler = (HttpResponse.BodyHandler) HttpResponse.BodyHandlers.ofInputStream();
        JdkHttpTransport transport = new JdkHttpTransport(client, request.build(), handler, null);
        transport.collectBody().get();
        CompletableFuture<Object> caller = new CompletableFuture<>();
        transport.bindCaller(caller);
        callers.put(transport, caller);
        return transport;
    }

    @Override
    protected Class<?> responseType() {
        return HttpResponse.class;
    }

    @Override
    protected Received receive(HttpTransport transport, Object response) throws Exception {
        HttpResponse<?> r = (HttpResponse<?>) response;
        String body;
        try (InputStream in = (InputStream) r.body()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        return new Received(r, r.statusCode(), pairsOf(r.headers().map()), body);
    }

    @Override
    protected void closeUnread(HttpTransport transport, Object response) throws Exception {
        ((InputStream) ((HttpResponse<?>) response).body()).close();
    }

    @Override
    protected void dropUnread(HttpTransport transport, Object response) {
        ((HttpResponse<?>) response).body(); // taken to be read, then forgotten
    }

    /** The caller cancels the future {@code sendAsync} gave it. */
    @Override
    protected void cancel(HttpTransport transport, CompletableFuture<Object> attempt) {
        callers.get(transport).cancel(true);
    }
}
