package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.BodyObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.async.SdkAsyncHttpResponseHandler;

/**
 * The response handler of one attempt of an asynchronous governed call. A 2xx answer is the
 * attempt's answer as soon as its stream starts (the body then streams to the SDK through a
 * {@link TappedPublisher}); any other answer once its body was read whole. What the client reports
 * after a streaming answer was handed over (a failure mid-body, the end of the exchange) goes on
 * to the SDK's own handler and future.
 */
final class AttemptHandler implements SdkAsyncHttpResponseHandler, BiConsumer<Void, Throwable> {

    private final BodyObserver observer;
    /**
     * The attempt's answer, until a streaming one is given: then null, since the client holds this
     * handler until the exchange ends, and must not keep reachable a body the SDK may drop unread.
     */
    private volatile CompletableFuture<Object> answer;

    /**
     * Tells a streaming answer's observer that the exchange failed: the client's news, heard even
     * when the SDK holds the body unsubscribed. Holds nothing of the body itself.
     */
    private volatile Consumer<Throwable> bodyFailed;

    private volatile SdkHttpResponse head;
    /** The client's future of this attempt. */
    volatile CompletableFuture<Void> exchange;

    // After a streaming answer is handed to the SDK: where the rest of the exchange goes.
    private SdkAsyncHttpResponseHandler relayTo;
    private CallFuture relayFuture;
    private Throwable pendingError;
    private boolean exchangeEnded;
    private Throwable exchangeFailure;

    AttemptHandler(BodyObserver observer, CompletableFuture<Object> answer) {
        this.observer = observer;
        this.answer = answer;
    }

    @Override
    public void onHeaders(SdkHttpResponse headers) {
        head = headers;
    }

    @Override
    public void onStream(Publisher<ByteBuffer> stream) {
        SdkHttpResponse h = head;
        if (h == null) {
            failed(new IOException("a response body came before its headers"));
            return;
        }
        CompletableFuture<Object> a = answer;
        if (a == null) {
            return;
        }
        if (h.isSuccessful()) {
            TappedPublisher body = new TappedPublisher(stream, observer);
            bodyFailed = body.failure();
            answer = null;
            a.complete(new AsyncAnswer(h, this, body));
            return;
        }
        stream.subscribe(new Collector(h, a));
    }

    /** A streaming answer given, its exchange failed: the observer hears it, once, read or not. */
    private void bodyFailed(Throwable failure) {
        Consumer<Throwable> tell = bodyFailed;
        if (tell != null) {
            tell.accept(failure);
        }
    }

    /** Whether {@code failure} is the attempt's answer (none was given yet). */
    private boolean failed(Throwable failure) {
        CompletableFuture<Object> a = answer;
        return a != null && a.completeExceptionally(failure);
    }

    @Override
    public void onError(Throwable failure) {
        if (failed(failure)) {
            return;
        }
        bodyFailed(failure);
        SdkAsyncHttpResponseHandler to;
        synchronized (this) {
            to = relayTo;
            if (to == null) {
                pendingError = failure;
                return;
            }
        }
        to.onError(failure);
    }

    /** The client's future of this attempt completed. */
    @Override
    public void accept(Void ignored, Throwable failure) {
        if (failure != null) {
            if (failed(failure)) {
                return;
            }
            bodyFailed(failure);
        }
        SdkHttpResponse h = head;
        CompletableFuture<Object> a = answer;
        if (failure == null && a != null && !a.isDone() && h != null) {
            if (h.isSuccessful()) {
                observer.onEnd(); // a success without a body: nothing more to count
            }
            a.complete(new AsyncAnswer(h, new byte[0]));
            return;
        }
        CallFuture to;
        synchronized (this) {
            exchangeEnded = true;
            exchangeFailure = failure;
            to = relayFuture;
        }
        if (to != null) {
            to.end(failure);
        }
    }

    /**
     * Hands the rest of a streaming answer to the SDK: a failure already reported goes to its
     * handler, and the end of the exchange, now or later, to its future.
     */
    void relay(SdkAsyncHttpResponseHandler handler, CallFuture future) {
        Throwable error;
        boolean ended;
        Throwable failure;
        synchronized (this) {
            relayTo = handler;
            relayFuture = future;
            error = pendingError;
            ended = exchangeEnded;
            failure = exchangeFailure;
        }
        if (error != null) {
            handler.onError(error);
        }
        if (ended) {
            future.end(failure);
        }
    }

    /** Cancels the exchange: a streaming answer nobody will read, or a call the SDK gave up. */
    void cancel() {
        CompletableFuture<Void> f = exchange;
        if (f != null) {
            f.cancel(true);
        }
    }

    /** Reads a non-2xx body whole, then makes it the attempt's answer. */
    private final class Collector implements Subscriber<ByteBuffer> {
        private final SdkHttpResponse errorHead;
        private final CompletableFuture<Object> errorAnswer;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);

        Collector(SdkHttpResponse errorHead, CompletableFuture<Object> errorAnswer) {
            this.errorHead = errorHead;
            this.errorAnswer = errorAnswer;
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ByteBuffer buffer) {
            byte[] chunk = new byte[buffer.remaining()];
            buffer.duplicate().get(chunk);
            bytes.write(chunk, 0, chunk.length);
        }

        @Override
        public void onError(Throwable failure) {
            errorAnswer.completeExceptionally(failure);
        }

        @Override
        public void onComplete() {
            errorAnswer.complete(new AsyncAnswer(errorHead, bytes.toByteArray()));
        }
    }
}
