package dev.sluice.instrumentation.okhttp.helper;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.bootstrap.BodyObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.MediaType;
import okhttp3.MultipartBody;
import okhttp3.OkHttpClient;
import okhttp3.OneShotTestBody;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import okio.Okio;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sluice's attempts carry the application's body, every time: the application's own request when
 * its body may be written again, else a copy holding the bytes read ahead. Against a loopback
 * server that records what each attempt brought.
 */
class OkHttpTransportTest {

    private static final MediaType JSON = MediaType.get("application/json");
    private static final String BODY =
            "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    private HttpServer server;
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private final List<String> tenants = new CopyOnWriteArrayList<>();
    private final List<Request> sent = new CopyOnWriteArrayList<>();
    private OkHttpClient client;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                bodies.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            String tenant = exchange.getRequestHeaders().getFirst("X-Sluice-Tenant");
            tenants.add(tenant == null ? "-" : tenant);
            byte[] answer = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
        client = new OkHttpClient.Builder()
                .addInterceptor(chain -> {
                    sent.add(chain.request());
                    return chain.proceed(chain.request());
                })
                .build();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
    }

    private Request.Builder post(RequestBody body) {
        return new Request.Builder()
                .url("http://" + server.getAddress().getHostString() + ":"
                        + server.getAddress().getPort() + "/v1/chat/completions")
                .post(body);
    }

    /** Sends the transport's attempt {@code times} times, as Sluice's retry loop does, reading each answer. */
    private void sendAttempts(OkHttpTransport transport, int times) throws Exception {
        for (int i = 0; i < times; i++) {
            try (Response response = (Response) transport.send(BodyObserver.IGNORED)) {
                assertThat(response.code()).isEqualTo(200);
                response.body().string();
            }
        }
    }

    @Test
    void aBodyOkHttpMayWriteAgainIsSentInTheApplicationsOwnRequestEachAttempt() throws Exception {
        Request request = post(RequestBody.create(JSON, BODY)).build();
        OkHttpTransport transport = OkHttpTransport.of(client, client, client.newCall(request));

        assertThat(governanceReads(transport)).isEqualTo(BODY);
        sendAttempts(transport, 2);

        assertThat(bodies).containsExactly(BODY, BODY);
        assertThat(sent).hasSize(2).allSatisfy(r -> assertThat(r).isSameAs(request));
    }

    @Test
    void aRerouteSendsLaterAttemptsElsewhereWithTheHeadersAndBodyItNames() throws Exception {
        Request request = new Request.Builder()
                .url("http://east.invalid/v1/chat/completions")
                .header("Authorization", "Bearer sk-east")
                .header("X-Sluice-Tenant", "acme")
                .header("OpenAI-Beta", "assistants=v2")
                .post(RequestBody.create(JSON, BODY))
                .build();
        OkHttpTransport transport = OkHttpTransport.of(client, client, client.newCall(request));
        governanceReads(transport);
        assertThat(transport.canReroute()).isTrue();
        java.util.Map<String, String> set = new java.util.HashMap<>();
        set.put("authorization", "Bearer sk-west");
        set.put("host", null);
        String moved = "{\"model\":\"gpt-4o\"}";
        transport.reroute(
                "http://" + server.getAddress().getHostString() + ":"
                        + server.getAddress().getPort() + "/v1/chat/completions",
                set,
                moved.getBytes(StandardCharsets.UTF_8));
        sendAttempts(transport, 1);

        assertThat(bodies).containsExactly(moved);
        assertThat(tenants).as("Sluice's private headers stay stripped").containsExactly("-");
        Request sentRequest = sent.get(0);
        assertThat(sentRequest.headers("Authorization")).containsExactly("Bearer sk-west");
        assertThat(sentRequest.header("OpenAI-Beta")).isEqualTo("assistants=v2");
        assertThat(transport.url()).as("the call's own URL").isEqualTo("http://east.invalid/v1/chat/completions");
    }

    @Test
    void eachRerouteStartsFromTheApplicationsRequestNotThePreviousRoutes() throws Exception {
        Request request = new Request.Builder()
                .url("http://east.invalid/v1/chat/completions")
                .header("Authorization", "Bearer sk-east")
                .post(RequestBody.create(JSON, BODY))
                .build();
        OkHttpTransport transport = OkHttpTransport.of(client, client, client.newCall(request));
        governanceReads(transport);
        String here = "http://" + server.getAddress().getHostString() + ":"
                + server.getAddress().getPort();
        transport.reroute(
                "http://west.invalid/v1/chat/completions",
                java.util.Map.of("authorization", "Bearer sk-west"),
                "{\"model\":\"west-model\"}".getBytes(StandardCharsets.UTF_8));
        // the next route keeps the call's own key and body
        transport.reroute(here + "/v1/chat/completions", java.util.Map.of(), null);
        sendAttempts(transport, 1);

        assertThat(bodies).as("the application's body, not the first route's").containsExactly(BODY);
        assertThat(sent.get(0).headers("Authorization"))
                .as("the first route's key never goes to the next route")
                .containsExactly("Bearer sk-east");
    }

    /** What the governance reads of the body, as it reads it: once, then done with it. */
    private static String governanceReads(OkHttpTransport transport) {
        byte[] body = transport.requestBody();
        String read = new String(body, 0, transport.requestBodyLength(), StandardCharsets.UTF_8);
        transport.requestBodyRead();
        return read;
    }

    private OkHttpTransport transportOf(String body) {
        return OkHttpTransport.of(
                client,
                client,
                client.newCall(post(RequestBody.create(JSON, body)).build()));
    }

    @Test
    void theArrayLentForTheGovernancesReadIsReusedOnceItIsDone() {
        String longer = BODY.replace("hi", "hi there, a longer prompt");
        governanceReads(transportOf(longer)); // whatever earlier tests left: an array this size is kept now
        OkHttpTransport first = transportOf(longer);
        byte[] lent = first.requestBody();
        assertThat(new String(lent, 0, first.requestBodyLength(), StandardCharsets.UTF_8))
                .isEqualTo(longer);

        // while the first call holds it, another reads into an array of its own
        OkHttpTransport meanwhile = transportOf(BODY);
        byte[] own = meanwhile.requestBody();
        assertThat(own).isNotSameAs(lent);
        assertThat(new String(own, 0, meanwhile.requestBodyLength(), StandardCharsets.UTF_8))
                .isEqualTo(BODY);
        first.requestBodyRead();
        meanwhile.requestBodyRead(); // the spare is the first's: this one is not kept
        assertThat(first.requestBody()).as("nothing left to read once done").isNull();

        // the next call reads a shorter body into the same array, and only its own length counts
        OkHttpTransport next = transportOf(BODY);
        assertThat(next.requestBody()).isSameAs(lent);
        assertThat(next.requestBodyLength()).isEqualTo(BODY.length());
        assertThat(governanceReads(next)).isEqualTo(BODY);
    }

    @Test
    void aBodyAboveTheKeptSizeIsReadIntoAnArrayOfItsOwnAndNotKept() {
        String large = BODY.replace("hi", "x".repeat(BodyReadBuffer.MOST_KEPT));
        OkHttpTransport transport = transportOf(large);
        byte[] read = transport.requestBody();
        assertThat(read).hasSize(large.length());
        transport.requestBodyRead();

        assertThat(transportOf(BODY).requestBody()).isNotSameAs(read);
    }

    @Test
    void aBodyThatDrainsAStreamIsSentAsTheBytesReadAheadEachAttempt() throws Exception {
        // isOneShot() left false, as many hand-written bodies do: a second write would be empty
        RequestBody draining = drainingBody();
        Request request = post(draining).build();
        OkHttpTransport transport = OkHttpTransport.of(client, client, client.newCall(request));

        sendAttempts(transport, 2);

        assertThat(bodies).containsExactly(BODY, BODY);
        assertThat(sent).hasSize(2).allSatisfy(r -> assertThat(r).isNotSameAs(request));
    }

    @Test
    void aMultipartBodyWithADrainingPartIsSentAsTheBytesReadAheadEachAttempt() throws Exception {
        // OkHttp's own multipart body, trusted, yet only as honest as its parts
        RequestBody draining = drainingBody();
        MultipartBody multipart = new MultipartBody.Builder("b")
                .setType(MultipartBody.FORM)
                .addFormDataPart("file", "audio.json", draining)
                .build();
        Request request = post(multipart).build();
        OkHttpTransport transport = OkHttpTransport.of(client, client, client.newCall(request));

        sendAttempts(transport, 2);

        assertThat(bodies).hasSize(2).allSatisfy(b -> assertThat(b).contains(BODY));
        assertThat(bodies.get(1)).isEqualTo(bodies.get(0));
        assertThat(sent).allSatisfy(r -> assertThat(r).isNotSameAs(request));
    }

    /** {@link #BODY} from a stream, drained by the first write: a second write is empty. */
    private static RequestBody drainingBody() {
        InputStream once = new ByteArrayInputStream(BODY.getBytes(StandardCharsets.UTF_8));
        return new RequestBody() {
            @Override
            public MediaType contentType() {
                return JSON;
            }

            @Override
            public void writeTo(BufferedSink sink) throws IOException {
                sink.writeAll(Okio.source(once));
            }
        };
    }

    @Test
    void aOneShotBodyIsWrittenOnceAndSentAsTheBytesReadAhead() throws Exception {
        OneShotTestBody oneShot = new OneShotTestBody(JSON, BODY);
        OkHttpTransport transport =
                OkHttpTransport.of(client, client, client.newCall(post(oneShot).build()));

        sendAttempts(transport, 3);

        assertThat(oneShot.writes()).isEqualTo(1);
        assertThat(bodies).containsExactly(BODY, BODY, BODY);
    }

    @Test
    void privateHeadersAreDroppedFromEveryAttemptWhateverTheBody() throws Exception {
        Request request = post(RequestBody.create(JSON, BODY))
                .header("X-Sluice-Tenant", "t1")
                .build();
        OkHttpTransport transport = OkHttpTransport.of(client, client, client.newCall(request));

        sendAttempts(transport, 2);

        assertThat(tenants).containsExactly("-", "-");
        assertThat(bodies).containsExactly(BODY, BODY);
        assertThat(transport.requestHeaderPairs()).contains("X-Sluice-Tenant", "t1");
    }
}
