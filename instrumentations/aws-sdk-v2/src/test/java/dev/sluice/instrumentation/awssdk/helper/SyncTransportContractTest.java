package dev.sluice.instrumentation.awssdk.helper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.HttpTransportContract;
import dev.sluice.instrumentation.testing.LoopbackServer;
import dev.sluice.instrumentation.testing.RecordingObserver;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
 *
 * <p>The contract's calls carry {@code Authorization: Bearer}, which is what the SDK sends for
 * Bedrock with an API key: nothing is signed, so the contract applies as written. With SigV4 (the
 * default) two of its expectations cannot hold, and are checked here in their signed form instead:
 * the {@code Authorization} the transport tells is the SDK's signature, not the application's; and a
 * private header the signature covers is not taken out (removing it would void the signature: AWS
 * would answer 403), while one it does not cover is. What every signed attempt must keep, the
 * signature, is checked as AWS checks it.
 */
class SyncTransportContractTest extends HttpTransportContract {

    private SdkHttpClient client;

    @BeforeEach
    void client() {
        client = ApacheHttpClient.builder().maxConnections(1).build();
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    @Override
    protected HttpTransport transport(ApplicationCall call) throws Exception {
        return transportOf(SdkRequests.of(call.method, call.url, call.headers, call.contentType, call.body));
    }

    /** As the hook makes it in {@code prepareRequest}: the request the SDK hands its client. */
    private SyncTransport transportOf(SdkHttpFullRequest request) throws Exception {
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

    // ------------------------------------------------------------------ a SigV4-signed call

    @Test
    void aSignedCallIsSentAsSignedByEveryAttemptOnlyItsUnsignedPrivateHeadersTakenOut() throws Exception {
        server.reply(LoopbackServer.Reply.status(429).json(REFUSAL));
        String url = server.url("/model/m/converse");
        SdkHttpFullRequest signed = SdkRequests.signedWithAnUnsignedPrivateHeader(url, CHAT);
        SyncTransport t = transportOf(signed);
        assertThat(t.requestHeaders()).as("told as the SDK made it").isEqualTo(signed.headers());

        t.requestBodyRead();
        t.discard(t.send(new RecordingObserver()));
        Received received = receive(t, t.handBack(t.send(new RecordingObserver()), Collections.emptyMap()));

        assertThat(received.status).isEqualTo(200);
        assertThat(server.requests()).hasSize(2).allSatisfy(r -> SdkRequests.assertSentAsSigned(r, url, CHAT));
    }
}
