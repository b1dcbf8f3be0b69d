package dev.sluice.instrumentation.hc5.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.HttpTransportContract;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** {@link ClassicTransport} keeps the transport contract, through a client of one connection. */
class ClassicTransportContractTest extends HttpTransportContract {

    private CloseableHttpClient client;
    /** The application's request of each transport, which it cancels. */
    private final Map<HttpTransport, HttpUriRequestBase> requests = new ConcurrentHashMap<>();

    @BeforeEach
    void client() {
        client = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setMaxConnPerRoute(1)
                        .setMaxConnTotal(1)
                        .build())
                // with the agent, HttpClient's retry of 429 and 503 stands aside for governed calls
                // (the advice on its retry strategy); here it is off
                .disableAutomaticRetries()
                .build();
    }

    @AfterEach
    void closeClient() throws Exception {
        client.close();
    }

    /** As {@code CloseableHttpClient.execute(request)} calls the hooked {@code doExecute}: its host, no context. */
    @Override
    protected HttpTransport transport(ApplicationCall call) throws Exception {
        URI uri = URI.create(call.url);
        HttpUriRequestBase request = new HttpUriRequestBase(call.method, uri);
        for (String[] h : call.headers) {
            request.addHeader(h[0], h[1]);
        }
        if (call.body != null) {
            request.setEntity(new ByteArrayEntity(call.body, ContentType.parse(call.contentType)));
        }
        HttpHost target = new HttpHost(uri.getScheme(), uri.getHost(), uri.getPort());
        ClassicTransport transport =
                ClassicTransport.of(client, target, request, null, ClassicTransport.urlOf(target, request));
        requests.put(transport, request);
        return transport;
    }

    @Override
    protected void callEnded(HttpTransport transport) {
        ((ClassicTransport) transport).finish();
    }

    @Override
    protected Class<?> responseType() {
        return CloseableHttpResponse.class;
    }

    @Override
    protected Received receive(HttpTransport transport, Object response) throws Exception {
        try (ClassicHttpResponse r = (ClassicHttpResponse) response) {
            HttpEntity entity = r.getEntity();
            List<String[]> headers = new ArrayList<>();
            for (Header h : r.getHeaders()) {
                headers.add(new String[] {h.getName(), h.getValue()});
            }
            return new Received(r, r.getCode(), headers, entity == null ? "" : EntityUtils.toString(entity));
        }
    }

    /** The application closes the response, its body unread (try-with-resources around the call). */
    @Override
    protected void closeUnread(HttpTransport transport, Object response) throws Exception {
        ((ClassicHttpResponse) response).close();
    }

    @Override
    protected void dropUnread(HttpTransport transport, Object response) {
        ((ClassicHttpResponse) response).getEntity(); // taken to be read, then forgotten
    }

    /** The application cancels its request. */
    @Override
    protected void cancel(HttpTransport transport, CompletableFuture<Object> attempt) {
        requests.get(transport).cancel();
    }

    /** The classic client only blocks: its send runs on a thread of the application's. */
    @Override
    protected CompletableFuture<Object> sendWhileTheTestGoesOn(HttpTransport transport, BodyObserver observer) {
        return sendOnAThreadOfItsOwn(transport, observer);
    }
}
