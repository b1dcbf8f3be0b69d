package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.HttpTransport;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.apache.ApacheHttpClient;

/**
 * {@link SyncTransport} keeps the transport contract, through the SDK's default synchronous client
 * (Apache) of one connection. The application is the SDK: it gets an {@code HttpExecuteResponse}
 * and reads its body stream.
 */
class SyncTransportContractTest extends SdkTransportContract {

    private SdkHttpClient client;

    @BeforeEach
    void client() {
        client = ApacheHttpClient.builder().maxConnections(1).build();
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    /** As the hook makes it in {@code prepareRequest}: the request the SDK hands its client. */
    @Override
    protected SyncTransport transportOf(SdkHttpFullRequest request) throws Exception {
        HttpExecuteRequest execute = HttpExecuteRequest.builder()
                .request(request)
                .contentStreamProvider(request.contentStreamProvider().orElse(null))
                .build();
        return SyncTransport.of(client, execute, request.getUri().toString());
    }

    @Override
    protected Class<?> responseType() {
        return HttpExecuteResponse.class;
    }

    /** As the SDK reads a response: its head, then its body stream to the end, closed. */
    @Override
    protected Received receive(HttpTransport transport, Object response) throws Exception {
        HttpExecuteResponse r = (HttpExecuteResponse) response;
        String body = "";
        Optional<AbortableInputStream> content = r.responseBody();
        if (content.isPresent()) {
            try (InputStream in = content.get()) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                in.transferTo(bytes);
                body = bytes.toString(StandardCharsets.UTF_8);
            }
        }
        return new Received(
                r, r.httpResponse().statusCode(), pairsOf(r.httpResponse().headers()), body);
    }

    @Override
    protected void closeUnread(HttpTransport transport, Object response) throws Exception {
        ((HttpExecuteResponse) response).responseBody().get().close();
    }

    @Override
    protected void dropUnread(HttpTransport transport, Object response) {
        ((HttpExecuteResponse) response).responseBody().get(); // taken to be read, then forgotten
    }

    /** The SDK aborts the request the hook gave it ({@code GovernedRequest.abort()}), which aborts the transport. */
    @Override
    protected void cancel(HttpTransport transport, CompletableFuture<Object> attempt) {
        new SyncCalls.GovernedRequest((SyncTransport) transport).abort();
    }

    /** The synchronous client only blocks: its send runs on a thread of the application's. */
    @Override
    protected CompletableFuture<Object> sendWhileTheTestGoesOn(HttpTransport transport, BodyObserver observer) {
        return sendOnAThreadOfItsOwn(transport, observer);
    }
}
