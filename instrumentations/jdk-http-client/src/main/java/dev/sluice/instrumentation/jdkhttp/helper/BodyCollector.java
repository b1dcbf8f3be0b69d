package dev.sluice.instrumentation.jdkhttp.helper;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * Reads a request {@code BodyPublisher} once into bytes, so every attempt can send it again. Each
 * buffer is copied once, into an array sized from the publisher's content length when it has one,
 * and that array is the result when it came out exactly full (an 8 KiB prompt used to be copied
 * three times: into a chunk, into a stream, out of the stream).
 */
final class BodyCollector implements Flow.Subscriber<ByteBuffer> {

    /** The most bytes reserved up front from a declared length; beyond, the array grows as bytes come. */
    private static final int MOST_PRESIZED = 1 << 20;

    private byte[] bytes;
    private int count;
    final CompletableFuture<byte[]> result = new CompletableFuture<>();

    BodyCollector() {
        this(-1);
    }

    /** {@code contentLength}: the publisher's, or negative when unknown. */
    BodyCollector(long contentLength) {
        bytes = new byte[contentLength > 0 ? (int) Math.min(contentLength, MOST_PRESIZED) : 1024];
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public synchronized void onNext(ByteBuffer item) {
        int n = item.remaining();
        if (count + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(count + n, bytes.length * 2));
        }
        item.duplicate().get(bytes, count, n);
        count += n;
    }

    @Override
    public void onError(Throwable throwable) {
        result.completeExceptionally(throwable);
    }

    @Override
    public synchronized void onComplete() {
        result.complete(count == bytes.length ? bytes : Arrays.copyOf(bytes, count));
    }
}
