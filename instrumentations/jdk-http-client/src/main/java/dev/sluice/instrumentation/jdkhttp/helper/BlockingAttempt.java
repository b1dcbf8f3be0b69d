package dev.sluice.instrumentation.jdkhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

/**
 * The body handler of one attempt sent with {@code HttpClient.send}, which returns only once the
 * application's handler has its body. A 2xx body goes to the application's own subscriber: tapped
 * for the governor, except when that subscriber is the JDK's buffering one ({@code
 * BodyHandlers.ofString()}, {@code ofByteArray()}), whose whole body is a {@code String} or a
 * {@code byte[]} by the time {@code send} returns. That one is left as it is and the governor is
 * shown the body afterwards ({@link #observeBuffered}): the JDK hands the body of its own
 * subscribers over on the thread that read it, and of any other (so of a tap) through the client's
 * executor, a thread hand-over on every call (docs/benchmarks.md, the JDK client's trusted
 * subscribers). Any other status is buffered so the governor can read it and decide.
 */
final class BlockingAttempt implements HttpResponse.BodyHandler<Object> {

    private static final String JDK_BUFFERING_SUBSCRIBER =
            "jdk.internal.net.http.ResponseSubscribers$ByteArraySubscriber";

    private final HttpResponse.BodyHandler<Object> application;
    private final BodyObserver observer;
    /** Set when a 2xx body went to the JDK's buffering subscriber untapped: the governor has seen none of it yet. */
    private volatile boolean untapped;

    BlockingAttempt(HttpResponse.BodyHandler<Object> application, BodyObserver observer) {
        this.application = application;
        this.observer = observer;
    }

    @Override
    public HttpResponse.BodySubscriber<Object> apply(HttpResponse.ResponseInfo info) {
        if (!JdkHttpTransport.isSuccess(info.statusCode())) {
            return JdkHttpTransport.cast(HttpResponse.BodySubscribers.ofByteArray());
        }
        HttpResponse.BodySubscriber<Object> own = application.apply(info);
        if (own != null && JDK_BUFFERING_SUBSCRIBER.equals(own.getClass().getName())) {
            untapped = true;
            return own;
        }
        return new TappedSubscriber(own, observer);
    }

    /** After {@code send} returned: shows the governor the body the JDK buffered untapped. */
    void observeBuffered(HttpResponse<Object> response) {
        if (!untapped) {
            return;
        }
        try {
            Object body = response.body();
            byte[] bytes = body instanceof byte[]
                    ? (byte[]) body
                    : body instanceof String ? ((String) body).getBytes(StandardCharsets.UTF_8) : null;
            if (bytes == null) {
                observer.onClose(); // not a body the JDK's buffering subscriber makes: nothing to read
                return;
            }
            observer.onBytes(bytes, 0, bytes.length);
            observer.onEnd();
        } catch (Throwable ignored) {
            // the observer must never break the application's call
        }
    }

    /** {@code send} failed: if it was reading a body the governor could not see, the governor learns it broke. */
    void observeFailure(Throwable failure) {
        if (untapped) {
            try {
                observer.onFailure(failure);
            } catch (Throwable ignored) {
                // see observeBuffered
            }
        }
    }
}
