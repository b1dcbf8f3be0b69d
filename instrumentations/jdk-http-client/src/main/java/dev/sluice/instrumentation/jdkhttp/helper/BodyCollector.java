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
 *
 * <p>From the JDK's own in-memory publishers ({@code ofString}, {@code ofByteArray}) not even that:
 * each subscription gets fresh heap buffers copied from the content, which the publisher never
 * touches again, so a body that comes as one such buffer is kept as it came (8 KB less a call for
 * an 8 KB prompt). Another publisher may reuse its buffers once {@code onNext} returns: its bytes
 * are always copied.
 */
final class BodyCollector implements Flow.Subscriber<ByteBuffer> {

    /** The most bytes reserved up front from a declared length; beyond, the array grows as bytes come. */
    private static final int MOST_PRESIZED = 1 << 20;

    private final long contentLength;
    private final boolean freshBuffers;
    private byte[] bytes;
    private int count;
    final CompletableFuture<byte[]> result = new CompletableFuture<>();

    /**
     * @param contentLength the publisher's, or negative when unknown
     * @param freshBuffers the publisher hands each subscription buffers of its own and never
     *     touches them again (see {@link #isJdkInMemory})
     */
    BodyCollector(long contentLength, boolean freshBuffers) {
        this.contentLength = contentLength;
        this.freshBuffers = freshBuffers;
    }

    /** The JDK's {@code BodyPublishers.ofString} and {@code ofByteArray} (JDK 11 to 25). */
    static boolean isJdkInMemory(Object publisher) {
        String name = publisher.getClass().getName();
        return name.equals("jdk.internal.net.http.RequestPublishers$ByteArrayPublisher")
                || name.equals("jdk.internal.net.http.RequestPublishers$StringPublisher");
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public synchronized void onNext(ByteBuffer item) {
        int n = item.remaining();
        if (bytes == null) {
            if (freshBuffers && n == contentLength && wholeArray(item)) {
                bytes = item.array(); // see the class comment: nobody else holds it
                count = n;
                return;
            }
            bytes = new byte[contentLength > 0 ? (int) Math.min(contentLength, MOST_PRESIZED) : Math.max(n, 1024)];
        }
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

    private static boolean wholeArray(ByteBuffer item) {
        return item.hasArray()
                && !item.isReadOnly()
                && item.arrayOffset() == 0
                && item.position() == 0
                && item.remaining() == item.array().length;
    }

    @Override
    public synchronized void onComplete() {
        if (bytes == null) {
            result.complete(new byte[0]);
        } else {
            result.complete(count == bytes.length ? bytes : Arrays.copyOf(bytes, count));
        }
    }
}
