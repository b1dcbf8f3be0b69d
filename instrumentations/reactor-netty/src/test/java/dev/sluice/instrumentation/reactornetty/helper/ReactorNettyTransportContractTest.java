package dev.sluice.instrumentation.reactornetty.helper;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.HttpTransportContract;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientResponse;
import reactor.netty.resources.ConnectionProvider;

/**
 * {@link ReactorNettyTransport} keeps the transport contract, through a client of one connection.
 * The application's receiver is what the hook feeds: the response with its body, or with its
 * connection for a {@code responseConnection} receiver (the one view a body can be dropped from).
 */
class ReactorNettyTransportContractTest extends HttpTransportContract {

    private static final Duration WAIT = Duration.ofMillis(DEADLINE_MILLIS);

    private ConnectionProvider pool;
    private HttpClient client;

    @BeforeEach
    void client() {
        pool = ConnectionProvider.create("contract", 1);
        client = HttpClient.create(pool);
    }

    @AfterEach
    void closeClient() {
        pool.disposeLater().block(WAIT);
    }

    /** As the hook makes it on subscription: the application's finalizer, its request read ahead. */
    @Override
    protected HttpTransport transport(ApplicationCall call) {
        HttpClient configured = client.headers(h -> {
            for (String[] header : call.headers) {
                h.add(header[0], header[1]);
            }
            if (call.contentType != null) {
                h.set("Content-Type", call.contentType);
            }
        });
        Object finalizer = call.body == null
                ? configured
                        .request(io.netty.handler.codec.http.HttpMethod.valueOf(call.method))
                        .uri(call.url)
                : configured
                        .request(io.netty.handler.codec.http.HttpMethod.valueOf(call.method))
                        .uri(call.url)
                        .send(ByteBufFlux.fromString(Mono.just(new String(call.body, StandardCharsets.UTF_8))));
        ReactorNettyTransport transport = new ReactorNettyTransport((HttpClient) finalizer, call.method, call.url);
        transport.captured(RequestCapture.capture((HttpClient) finalizer).block(WAIT));
        return transport;
    }

    @Override
    protected Class<?> responseType() {
        return HttpClientResponse.class;
    }

    /** A {@code responseSingle} receiver: the response, and its body aggregated. */
    @Override
    protected Received receive(HttpTransport transport, Object response) {
        Answer a = (Answer) response;
        String body = a.body().aggregate().asString(StandardCharsets.UTF_8).block(WAIT);
        return new Received(
                a.response, a.response.status().code(), pairs(a.response.responseHeaders()), body == null ? "" : body);
    }

    private static List<String[]> pairs(HttpHeaders headers) {
        List<String[]> pairs = new ArrayList<>();
        for (Iterator<Map.Entry<String, String>> it = headers.iteratorAsString(); it.hasNext(); ) {
            Map.Entry<String, String> h = it.next();
            pairs.add(new String[] {h.getKey(), h.getValue()});
        }
        return pairs;
    }

    /** A receiver that returns without reading the body: the hook drains it. */
    @Override
    protected void closeUnread(HttpTransport transport, Object response) {
        ((Answer) response).drainIfUnread();
    }

    /** A {@code responseConnection} receiver that takes the connection and forgets it. */
    @Override
    protected void dropUnread(HttpTransport transport, Object response) {
        ((Answer) response).connectionForCaller();
    }

    /** The subscriber cancels: the hook cancels the transport, the governance the attempt in flight. */
    @Override
    protected void cancel(HttpTransport transport, CompletableFuture<Object> attempt) {
        ((ReactorNettyTransport) transport).cancel();
        attempt.cancel(true);
    }
}
