package dev.sluice.instrumentation.hc5.helper;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncRequestProducer;
import org.apache.hc.core5.http.nio.DataStreamChannel;
import org.apache.hc.core5.http.nio.RequestChannel;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * Reads an asynchronous request producer ahead of the exchange: its head (what
 * {@code sendRequest} hands the channel) and then, only for a governed call, its body (what
 * {@code produce} writes). Only repeatable producers are read: a repeatable producer may be sent
 * again, so reading it here takes nothing from the application.
 */
final class RequestCapture implements RequestChannel, DataStreamChannel {

    /** Calls to {@code produce} that write nothing before the body is given up on (a producer waiting for data). */
    private static final int MAX_IDLE_TURNS = 64;

    HttpRequest request;
    EntityDetails entity;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private boolean ended;

    /** The producer's head, or null when it did not send one at once. */
    static RequestCapture head(AsyncRequestProducer producer, HttpContext context) throws Exception {
        RequestCapture capture = new RequestCapture();
        producer.sendRequest(capture, context);
        return capture.request == null ? null : capture;
    }

    /** The producer's whole body, or null when it does not produce it at once. */
    byte[] body(AsyncRequestProducer producer) throws Exception {
        if (entity == null) {
            return null;
        }
        int idle = 0;
        while (!ended && idle < MAX_IDLE_TURNS) {
            int before = body.size();
            producer.produce(this);
            idle = body.size() == before ? idle + 1 : 0;
        }
        producer.releaseResources(); // a repeatable producer starts over when it is sent
        return ended ? body.toByteArray() : null;
    }

    @Override
    public void sendRequest(HttpRequest request, EntityDetails entityDetails, HttpContext context) {
        this.request = request;
        this.entity = entityDetails;
    }

    @Override
    public void requestOutput() {}

    @Override
    public int write(ByteBuffer src) {
        int n = src.remaining();
        byte[] chunk = new byte[n];
        src.get(chunk);
        body.write(chunk, 0, n);
        return n;
    }

    @Override
    public void endStream() {
        ended = true;
    }

    @Override
    public void endStream(List<? extends Header> trailers) {
        ended = true;
    }
}
