package dev.sluice.instrumentation.hc5.helper;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.HttpTransportContract;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestProducer;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.nio.AsyncRequestProducer;
import org.apache.hc.core5.io.CloseMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link AsyncTransport} keeps the transport contract, through a client of one connection. The
 * application's consumer is HttpClient's {@code SimpleResponseConsumer}: its answer is a
 * {@code SimpleHttpResponse}. A body pushed to the application's consumer cannot be left unread:
 * closing or dropping it unread is handing it to that consumer, which takes it to its end.
 */
class AsyncTransportContractTest extends HttpTransportContract {

    private CloseableHttpAsyncClient client;
    /** The future each call's application holds, which it cancels, and which completes with its answer. */
    private final Map<HttpTransport, CallFuture> futures = new ConcurrentHashMap<>();

    @BeforeEach
    void client() {
        client = HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setMaxConnPerRoute(1)
                        .setMaxConnTotal(1)
                        .build())
                // with the agent, HttpClient's retry of 429 and 503 stands aside for governed calls; here it is off
                .disableAutomaticRetries()
                .build();
        client.start();
    }

    @AfterEach
    void closeClient() {
        client.close(CloseMode.IMMEDIATE);
    }

    /** As the hook reads the application's producer ahead of the hooked {@code doExecute}: its head, then its body. */
    @Override
    protected HttpTransport transport(ApplicationCall call) throws Exception {
        URI uri = URI.create(call.url);
        SimpleHttpRequest request = SimpleHttpRequest.create(call.method, uri);
        for (String[] h : call.headers) {
            request.addHeader(h[0], h[1]);
        }
        if (call.body != null) {
            request.setBody(call.body, ContentType.parse(call.contentType));
        }
        HttpHost target = new HttpHost(uri.getScheme(), uri.getHost(), uri.getPort());
        AsyncRequestProducer producer = SimpleRequestProducer.create(request);
        RequestCapture capture = RequestCapture.head(producer, null);
        byte[] body = capture.body(producer);
        CallFuture future = new CallFuture(null);
        @SuppressWarnings({"unchecked", "rawtypes"})
        AsyncTransport transport = new AsyncTransport(
                client,
                target,
                capture.request,
                ClassicTransport.urlOf(target, capture.request),
                body,
                capture.entity == null ? null : Hc5Headers.contentType(capture.entity.getContentType()),
                null,
                null,
                (org.apache.hc.core5.http.nio.AsyncResponseConsumer) SimpleResponseConsumer.create(),
                future);
        future.bind(transport);
        futures.put(transport, future);
        return transport;
    }

    @Override
    protected Class<?> responseType() {
        return SimpleHttpResponse.class;
    }

    /** The hook delivers the answer to the application's consumer; the application's future completes with what it made. */
    @Override
    protected Received receive(HttpTransport transport, Object response) throws Exception {
        ((AsyncTransport) transport).deliver(response, null);
        SimpleHttpResponse r = (SimpleHttpResponse) futures.get(transport).get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        List<String[]> headers = new ArrayList<>();
        for (Header h : r.getHeaders()) {
            headers.add(new String[] {h.getName(), h.getValue()});
        }
        String body = r.getBodyText();
        return new Received(r, r.getCode(), headers, body == null ? "" : body);
    }

    @Override
    protected void closeUnread(HttpTransport transport, Object response) {
        ((AsyncTransport) transport).deliver(response, null);
    }

    @Override
    protected void dropUnread(HttpTransport transport, Object response) {
        ((AsyncTransport) transport).deliver(response, null);
    }

    /** The application cancels its future. */
    @Override
    protected void cancel(HttpTransport transport, CompletableFuture<Object> attempt) {
        futures.get(transport).cancel(true);
    }
}
