package dev.sluice.instrumentation.awssdk.helper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bootstrap.HttpTransport;
import dev.sluice.instrumentation.testing.LoopbackServer;
import dev.sluice.instrumentation.testing.RecordingObserver;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.async.SdkAsyncHttpResponseHandler;
import software.amazon.awssdk.http.async.SdkHttpContentPublisher;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;

/**
 * {@link AsyncTransport} keeps the transport contract, through the SDK's default asynchronous
 * client (Netty) of one connection. The application is the SDK: its response handler gets the
 * head ({@code SdkHttpResponse}, the response type here) and the body as a publisher, and its
 * future, the one the hook returned, completes when the exchange ends.
 */
class AsyncTransportContractTest extends SdkTransportContract {

    private SdkAsyncHttpClient client;
    /** The SDK's handler and future of each call. */
    private final Map<HttpTransport, Application> applications = new ConcurrentHashMap<>();

    @BeforeEach
    void client() {
        // Each test its own client and event loop: with one event loop shared by the tests' clients a
        // refused connection once waited out Netty's 10 s acquire timeout instead of failing at once.
        client = NettyNioAsyncHttpClient.builder()
                .maxConcurrency(1)
                .protocol(Protocol.HTTP1_1)
                .build();
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    /** As the hook makes it in {@code execute}: the SDK's request, its content publisher, its handler. */
    @Override
    protected AsyncTransport transportOf(SdkHttpFullRequest request) throws Exception {
        Application application = new Application();
        AsyncExecuteRequest execute = AsyncExecuteRequest.builder()
                .request(request)
                .requestContentPublisher(new Content(request))
                .responseHandler(application)
                .build();
        CallFuture future = new CallFuture();
        AsyncTransport transport =
                AsyncTransport.of(client, execute, request.getUri().toString(), future);
        future.bind(transport);
        application.future = future;
        applications.put(transport, application);
        return transport;
    }

    @Override
    protected Class<?> responseType() {
        return SdkHttpResponse.class;
    }

    /** The hook delivers the answer to the SDK's handler, which reads the body; then the SDK's future completes. */
    @Override
    protected Received receive(HttpTransport transport, Object response) throws Exception {
        Application application = applications.get(transport);
        application.reads = Reads.WHOLE;
        ((AsyncTransport) transport).deliver(response, null);
        String body = application.body.get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        application.future.get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        SdkHttpResponse head = application.head;
        return new Received(head, head.statusCode(), pairsOf(head.headers()), body);
    }

    /** A handler that wants no body cancels its subscription. */
    @Override
    protected void closeUnread(HttpTransport transport, Object response) {
        applications.get(transport).reads = Reads.CANCELS;
        ((AsyncTransport) transport).deliver(response, null);
    }

    /** A handler that never subscribes to the body it was given. */
    @Override
    protected void dropUnread(HttpTransport transport, Object response) {
        applications.get(transport).reads = Reads.NEVER;
        ((AsyncTransport) transport).deliver(response, null);
    }

    /** The SDK cancels the future the hook returned (an abort, its API call timeout). */
    @Override
    protected void cancel(HttpTransport transport, CompletableFuture<Object> attempt) {
        applications.get(transport).future.cancel(true);
    }

    // ------------------------------------------------------------------ a body held unread

    /**
     * A handler that keeps the body it was given and never subscribes, then the SDK gives the call
     * up (an abort, its API call timeout): the exchange ends, so the permit is given back then, not
     * when the body becomes unreachable (it does not, the handler still holds it) nor when its lease
     * expires.
     */
    @Test
    void aStreamingBodyTheSdkHoldsUnreadIsSettledWhenTheSdkGivesTheCallUp() throws Exception {
        RecordingObserver observer = new RecordingObserver();
        Application application = deliverStreaming(observer, Reads.HOLDS);

        application.future.cancel(true);

        await(observer::settled, "the observer hears the exchange end: " + observer);
        assertThat(application.held).as("the handler still holds the body").isNotNull();
    }

    /**
     * A handler that keeps the body it was given, then fails in {@code onStream}: the SDK's future
     * ends with that failure, and nobody will read the body, so its exchange is stopped and its
     * permit given back then, not when its lease expires.
     */
    @Test
    void aStreamingBodyWhoseHandlerFailsIsSettledAtOnce() throws Exception {
        RecordingObserver observer = new RecordingObserver();
        Application application = deliverStreaming(observer, Reads.HOLDS_THEN_FAILS);

        assertThat(application.future).isCompletedExceptionally();
        await(observer::settled, "the observer hears the body's end: " + observer);
        assertThat(application.held).as("the handler still holds the body").isNotNull();
    }

    /** A streaming 2xx answer, delivered to a handler that {@code reads} it so; the handler returned. */
    private Application deliverStreaming(RecordingObserver observer, Reads reads) throws Exception {
        server.reply(LoopbackServer.Reply.status(200)
                .header("Content-Type", "text/event-stream")
                .chunks("data: {\"a\":1}\n\n", "data: [DONE]\n\n"));
        AsyncTransport t = (AsyncTransport) transport(chat());
        t.requestBodyRead();
        Object answer = t.sendAsync(observer).get(DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
        Application application = applications.get(t);
        application.reads = reads;
        t.deliver(t.handBack(answer, Collections.emptyMap()), null);
        return application;
    }

    // ------------------------------------------------------------------ the SDK's side

    private enum Reads {
        WHOLE,
        CANCELS,
        NEVER,
        HOLDS,
        HOLDS_THEN_FAILS
    }

    /** The SDK's response handler of one call, and the future the hook returned it. */
    private static final class Application implements SdkAsyncHttpResponseHandler {
        volatile Reads reads = Reads.WHOLE;
        volatile CallFuture future;
        volatile SdkHttpResponse head;
        volatile Publisher<ByteBuffer> held;
        final CompletableFuture<String> body = new CompletableFuture<>();

        @Override
        public void onHeaders(SdkHttpResponse headers) {
            head = headers;
        }

        @Override
        public void onStream(Publisher<ByteBuffer> stream) {
            if (reads == Reads.NEVER) {
                return; // given, never subscribed to, forgotten
            }
            if (reads == Reads.HOLDS || reads == Reads.HOLDS_THEN_FAILS) {
                held = stream; // given, kept, never subscribed to
                if (reads == Reads.HOLDS_THEN_FAILS) {
                    throw new IllegalStateException("the handler failed with the body in hand");
                }
                return;
            }
            stream.subscribe(new Subscriber<ByteBuffer>() {
                private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

                @Override
                public void onSubscribe(Subscription s) {
                    if (reads == Reads.CANCELS) {
                        s.cancel();
                        return;
                    }
                    s.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(ByteBuffer buffer) {
                    byte[] chunk = new byte[buffer.remaining()];
                    buffer.get(chunk);
                    bytes.write(chunk, 0, chunk.length);
                }

                @Override
                public void onError(Throwable failure) {
                    body.completeExceptionally(failure);
                }

                @Override
                public void onComplete() {
                    body.complete(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
                }
            });
        }

        @Override
        public void onError(Throwable failure) {
            body.completeExceptionally(failure);
        }
    }

    /** The request body as the SDK publishes it: the whole of it to each subscriber, its length told. */
    private static final class Content implements SdkHttpContentPublisher {
        private final byte[] bytes;

        Content(SdkHttpFullRequest request) {
            this.bytes = request.contentStreamProvider()
                    .map(p -> {
                        try {
                            return p.newStream().readAllBytes();
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .orElse(new byte[0]);
        }

        @Override
        public Optional<Long> contentLength() {
            return Optional.of((long) bytes.length);
        }

        @Override
        public void subscribe(Subscriber<? super ByteBuffer> subscriber) {
            new BufferedPublisher(bytes).subscribe(subscriber);
        }
    }
}
