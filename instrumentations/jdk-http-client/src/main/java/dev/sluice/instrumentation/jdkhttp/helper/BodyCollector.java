package dev.sluice.instrumentation.jdkhttp.helper;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/** Reads a request {@code BodyPublisher} once into bytes, so every attempt can send it again. */
final class BodyCollector implements Flow.Subscriber<ByteBuffer> {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final CompletableFuture<byte[]> result = new CompletableFuture<>();

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(ByteBuffer item) {
        ByteBuffer view = item.duplicate();
        byte[] chunk = new byte[view.remaining()];
        view.get(chunk);
        synchronized (bytes) {
            bytes.write(chunk, 0, chunk.length);
        }
    }

    @Override
    public void onError(Throwable throwable) {
        result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
        synchronized (bytes) {
            result.complete(bytes.toByteArray());
        }
    }
}
