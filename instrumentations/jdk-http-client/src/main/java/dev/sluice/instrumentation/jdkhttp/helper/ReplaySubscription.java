package dev.sluice.instrumentation.jdkhttp.helper;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/** Feeds bytes Sluice already holds to an application's {@code BodySubscriber}, on demand. */
final class ReplaySubscription implements Flow.Subscription {

    private final HttpResponse.BodySubscriber<?> subscriber;
    private final byte[] bytes;
    private final AtomicBoolean done = new AtomicBoolean();

    private ReplaySubscription(HttpResponse.BodySubscriber<?> subscriber, byte[] bytes) {
        this.subscriber = subscriber;
        this.bytes = bytes;
    }

    /** Subscribes {@code subscriber} to {@code bytes}: one item (when not empty), then completion. */
    static void replay(HttpResponse.BodySubscriber<?> subscriber, byte[] bytes) {
        subscriber.onSubscribe(new ReplaySubscription(subscriber, bytes));
    }

    @Override
    public void request(long n) {
        if (n <= 0) {
            if (done.compareAndSet(false, true)) {
                subscriber.onError(new IllegalArgumentException("non-positive request: " + n));
            }
            return;
        }
        if (done.compareAndSet(false, true)) {
            if (bytes.length > 0) {
                subscriber.onNext(Collections.singletonList(ByteBuffer.wrap(bytes.clone())));
            }
            subscriber.onComplete();
        }
    }

    @Override
    public void cancel() {
        done.set(true);
    }
}
