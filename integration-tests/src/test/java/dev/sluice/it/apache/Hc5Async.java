package dev.sluice.it.apache;

import java.io.ByteArrayInputStream;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.AbstractCharResponseConsumer;
import org.apache.hc.client5.http.async.methods.SimpleHttpRequest;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleRequestProducer;
import org.apache.hc.client5.http.async.methods.SimpleResponseConsumer;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;

/**
 * The asynchronous HttpClient 5 client as an application builds it (default retry strategy).
 * JSON calls go through {@code execute(SimpleHttpRequest, callback)}; streamed calls through a
 * streaming consumer that sees the SSE text as it arrives. Callers wait on the future from their
 * own threads; nothing ever blocks a reactor thread.
 */
final class Hc5Async implements ApacheHttpApp.Client {

    private final String url;
    private final CloseableHttpAsyncClient client;

    Hc5Async(String url) {
        this.url = url;
        this.client = HttpAsyncClients.createDefault();
        client.start();
    }

    private SimpleHttpRequest post(String callId, String body, String force) {
        SimpleRequestBuilder b = SimpleRequestBuilder.post(url)
                .setHeader("Authorization", "Bearer sk-hc5-async-test")
                .setHeader("x-sim-call-id", callId)
                .setBody(body, ContentType.APPLICATION_JSON);
        if (force != null) {
            b.setHeader("x-sim-force", force);
        }
        ApacheHttpApp.EXTRA_HEADERS.forEach(b::setHeader);
        return b.build();
    }

    @Override
    public String call(String callId, String body, boolean stream, int thread, String force) throws Exception {
        SimpleHttpRequest request = post(callId, body, force);
        if (stream) {
            Future<String[]> f = client.execute(SimpleRequestProducer.create(request), new StreamText(), null, null);
            String[] result = f.get(2, TimeUnit.MINUTES);
            int status = Integer.parseInt(result[0]);
            if (status != 200) {
                ApacheHttpApp.LAST_BODY.set(result[1]);
                return ApacheHttpApp.outcome(status, result[2]);
            }
            return ApacheHttpApp.readStream(new ByteArrayInputStream(result[1].getBytes(StandardCharsets.UTF_8)));
        }
        SimpleHttpResponse response = client.execute(request, null).get(2, TimeUnit.MINUTES);
        ApacheHttpApp.LAST_BODY.set(response.getBodyText());
        if (response.getCode() == 200 && !response.getBodyText().contains("\"usage\"")) {
            return "body:without-usage";
        }
        Header h = response.getFirstHeader("x-sluice-decision");
        return ApacheHttpApp.outcome(response.getCode(), h == null ? null : h.getValue());
    }

    @Override
    public void callAndDrop(String callId, String body) throws Exception {
        client.execute(SimpleRequestProducer.create(post(callId, body, null)), SimpleResponseConsumer.create(), null);
    }

    @Override
    public int connectionsPerRoute() {
        return 5;
    }

    /** A streaming consumer: {status, the text as it arrived, x-sluice-decision}; a fresh one per call. */
    private static final class StreamText extends AbstractCharResponseConsumer<String[]> {
        private final StringBuilder text = new StringBuilder();
        private String status;
        private String decision;

        @Override
        protected void start(HttpResponse response, ContentType contentType) {
            status = Integer.toString(response.getCode());
            Header h = response.getFirstHeader("x-sluice-decision");
            decision = h == null ? null : h.getValue();
        }

        @Override
        protected String[] buildResult() {
            return new String[] {status, text.toString(), decision};
        }

        @Override
        protected int capacityIncrement() {
            return 8192;
        }

        @Override
        protected void data(CharBuffer src, boolean endOfStream) {
            text.append(src);
        }

        @Override
        public void releaseResources() {}
    }
}
