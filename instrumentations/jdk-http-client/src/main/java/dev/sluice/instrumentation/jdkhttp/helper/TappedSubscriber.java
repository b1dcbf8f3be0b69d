package dev.sluice.instrumentation.jdkhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.TapBuffer;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.stream.BaseStream;

/**
 * The application's own {@code BodySubscriber} for a 2xx body, tapped so the governor sees every
 * byte (lent from the buffer's array, or copied out of a duplicate into one reused array: the
 * application's buffers are never consumed), the end, a
 * failure, and a close where the body type makes one observable (the JDK's InputStream, streams).
 */
class TappedSubscriber implements HttpResponse.BodySubscriber<Object> {

    private static final String JDK_INPUT_STREAM = "jdk.internal.net.http.ResponseSubscribers$HttpResponseInputStream";

    /** Makes the taps the JDK trusts, or null when it cannot be had here. */
    private static final Maker TRUSTED = TrustedTaps.maker();

    final HttpResponse.BodySubscriber<Object> delegate;
    private final BodyObserver observer;
    /** Where a direct or read-only buffer is copied for the observer; onNext calls never overlap. */
    private final TapBuffer scratch = new TapBuffer();

    TappedSubscriber(HttpResponse.BodySubscriber<Object> delegate, BodyObserver observer) {
        this.delegate = delegate;
        this.observer = observer;
    }

    /** The application's subscriber tapped: as one of the JDK's own when it can be, else as any other. */
    static HttpResponse.BodySubscriber<Object> of(HttpResponse.BodySubscriber<Object> delegate, BodyObserver observer) {
        Maker trusted = TRUSTED;
        return trusted != null ? trusted.tap(delegate, observer) : new TappedSubscriber(delegate, observer);
    }

    /** Whether {@link #of} makes taps the JDK trusts in this copy of the helpers. */
    static boolean trusted() {
        return TRUSTED != null;
    }

    /** Makes a tap of a kind only linked when the JDK's internal package is exported to the helpers. */
    interface Maker {
        TappedSubscriber tap(HttpResponse.BodySubscriber<Object> delegate, BodyObserver observer);
    }

    @Override
    public CompletionStage<Object> getBody() {
        return delegate.getBody().thenApply(this::observeClose);
    }

    private Object observeClose(Object body) {
        if (body instanceof InputStream
                && JDK_INPUT_STREAM.equals(body.getClass().getName())) {
            return new ObservedInputStream((InputStream) body, observer);
        }
        if (body instanceof BaseStream) {
            return ((BaseStream<?, ?>) body).onClose(observer::onClose);
        }
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        delegate.onSubscribe(subscription);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        try {
            for (ByteBuffer item : items) {
                int length = item.remaining();
                if (length == 0) {
                    continue;
                }
                if (item.hasArray()) { // lent as it lies: the observer only reads it, during the call
                    observer.onBytes(item.array(), item.arrayOffset() + item.position(), length);
                } else {
                    byte[] copy = scratch.room(length);
                    item.duplicate().get(copy, 0, length);
                    observer.onBytes(copy, 0, length);
                }
            }
        } catch (Throwable ignored) {
            // the observer must never break the application's body
        }
        delegate.onNext(items);
    }

    @Override
    public void onError(Throwable throwable) {
        try {
            observer.onFailure(throwable);
        } catch (Throwable ignored) {
            // see onNext
        }
        delegate.onError(throwable);
    }

    /**
     * The application's subscriber first: its body completes and the caller wakes while the
     * observer reads the usage here, instead of after it.
     */
    @Override
    public void onComplete() {
        try {
            delegate.onComplete();
        } finally {
            try {
                observer.onEnd();
            } catch (Throwable ignored) {
                // see onNext
            }
        }
    }
}
