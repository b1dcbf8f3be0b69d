package dev.sluice.instrumentation.okhttp.helper;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.HttpTransportContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.Call;
import okhttp3.Headers;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** {@link OkHttpTransport} keeps the transport contract, on OkHttp 3.14 (the oldest API the helpers link to). */
class OkHttpTransportContractTest extends HttpTransportContract {

    private OkHttpClient client;
    /** The application's call of each transport, which it cancels. */
    private final Map<HttpTransport, Call> calls = new ConcurrentHashMap<>();

    @BeforeEach
    void client() {
        client = new OkHttpClient();
    }

    @AfterEach
    void closeClient() {
        client.dispatcher().executorService().shutdownNow();
        client.connectionPool().evictAll();
    }

    @Override
    protected HttpTransport transport(ApplicationCall call) {
        Request.Builder request = new Request.Builder().url(call.url);
        for (String[] h : call.headers) {
            request.addHeader(h[0], h[1]);
        }
        request.method(
                call.method, call.body == null ? null : RequestBody.create(MediaType.get(call.contentType), call.body));
        Call application = client.newCall(request.build());
        OkHttpTransport transport = OkHttpTransport.of(client, client, application);
        calls.put(transport, application);
        return transport;
    }

    @Override
    protected Class<?> responseType() {
        return Response.class;
    }

    @Override
    protected Received receive(HttpTransport transport, Object response) throws Exception {
        try (Response r = (Response) response) {
            ResponseBody body = r.body();
            return new Received(r, r.code(), pairs(r.headers()), body == null ? "" : body.string());
        }
    }

    private static List<String[]> pairs(Headers headers) {
        List<String[]> pairs = new ArrayList<>();
        for (int i = 0; i < headers.size(); i++) {
            pairs.add(new String[] {headers.name(i), headers.value(i)});
        }
        return pairs;
    }

    @Override
    protected void closeUnread(HttpTransport transport, Object response) {
        ((Response) response).close();
    }

    @Override
    protected void dropUnread(HttpTransport transport, Object response) {
        ((Response) response).body().source(); // taken to be read, then forgotten
    }

    /** The application cancels its call; the hook's advice on {@code cancel()} cancels the transport. */
    @Override
    protected void cancel(HttpTransport transport, CompletableFuture<Object> attempt) {
        calls.get(transport).cancel();
        ((OkHttpTransport) transport).cancel();
    }
}
