package dev.sluice.instrumentation.awssdk.helper;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * A body Sluice holds whole (an error answer read ahead, a local rejection): one buffer on the
 * first request, then the end. Each subscriber gets every byte.
 */
final class BufferedPublisher implements Publisher<ByteBuffer> {

    private final byte[] bytes;

    BufferedPublisher(byte[] bytes) {
        this.bytes = bytes;
    }

    @Override
    public void subscribe(final Subscriber<? super ByteBuffer> subscriber) {
        subscriber.onSubscribe(new Subscription() {
            private final AtomicBoolean sent = new AtomicBoolean();

            @Override
            public void request(long n) {
                if (n <= 0) {
                    if (sent.compareAndSet(false, true)) {
                        subscriber.onError(
                                new IllegalArgumentException("request " + n + ": must be positive (rule 3.9)"));
                    }
                    return;
                }
                if (sent.compareAndSet(false, true)) {
                    if (bytes.length > 0) {
                        subscriber.onNext(ByteBuffer.wrap(bytes).asReadOnlyBuffer());
                    }
                    subscriber.onComplete();
                }
            }

            @Override
            public void cancel() {
                sent.set(true);
            }
        });
    }
}
