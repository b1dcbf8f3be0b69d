package dev.sluice.instrumentation.hc4.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.HttpTransportContract;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.http.Header;
import org.apache.http.HttpEntity;
import org.apache.http.HttpHost;
import org.apache.http.client.methods.CloseableHttpResponse;
import org.apache.http.client.methods.HttpEntityEnclosingRequestBase;
import org.apache.http.client.methods.HttpGet;
import org.apache.http.client.methods.HttpPost;
import org.apache.http.client.methods.HttpRequestBase;
import org.apache.http.client.utils.URIUtils;
import org.apache.http.entity.ByteArrayEntity;
import org.apache.http.entity.ContentType;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.HttpClients;
import org.apache.http.util.EntityUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** {@link Hc4Transport} keeps the transport contract, through a client of one connection. */
class Hc4TransportContractTest extends HttpTransportContract {

    private CloseableHttpClient client;
    /** The application's request of each transport, which it aborts. */
    private final Map<HttpTransport, HttpRequestBase> requests = new ConcurrentHashMap<>();

    @BeforeEach
    void client() {
        client = HttpClients.custom()
                .setMaxConnPerRoute(1)
                .setMaxConnTotal(1)
                // with the agent, HttpClient's retry handler stands aside for governed calls; here it is off
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
        HttpRequestBase request = call.body == null ? new HttpGet(uri) : new HttpPost(uri);
        for (String[] h : call.headers) {
            request.addHeader(h[0], h[1]);
        }
        if (call.body != null) {
            ((HttpEntityEnclosingRequestBase) request)
                    .setEntity(new ByteArrayEntity(call.body, ContentType.parse(call.contentType)));
        }
        HttpHost target = URIUtils.extractHost(uri);
        Hc4Transport transport = Hc4Transport.of(client, target, request, null, Hc4Transport.urlOf(target, request));
        requests.put(transport, request);
        return transport;
    }

    @Override
    protected void callEnded(HttpTransport transport) {
        ((Hc4Transport) transport).finish();
    }

    @Override
    protected Class<?> responseType() {
        return CloseableHttpResponse.class;
    }

    @Override
    protected Received receive(HttpTransport transport, Object response) throws Exception {
        try (CloseableHttpResponse r = (CloseableHttpResponse) response) {
            HttpEntity entity = r.getEntity();
            List<String[]> headers = new ArrayList<>();
            for (Header h : r.getAllHeaders()) {
                headers.add(new String[] {h.getName(), h.getValue()});
            }
            return new Received(
                    r, r.getStatusLine().getStatusCode(), headers, entity == null ? "" : EntityUtils.toString(entity));
        }
    }

    /** The application closes the response, its body unread (try-with-resources around the call). */
    @Override
    protected void closeUnread(HttpTransport transport, Object response) throws Exception {
        ((CloseableHttpResponse) response).close();
    }

    @Override
    protected void dropUnread(HttpTransport transport, Object response) {
        ((CloseableHttpResponse) response).getEntity(); // taken to be read, then forgotten
    }

    /** The application aborts its request. */
    @Override
    protected void cancel(HttpTransport transport, CompletableFuture<Object> attempt) {
        requests.get(transport).abort();
    }

    /** The classic client only blocks: its send runs on a thread of the application's. */
    @Override
    protected CompletableFuture<Object> sendWhileTheTestGoesOn(HttpTransport transport, BodyObserver observer) {
        return sendOnAThreadOfItsOwn(transport, observer);
    }
}
