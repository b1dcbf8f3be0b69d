package dev.sluice.instrumentation.jdkhttp.helper;

import dev.sluice.bootstrap.BodyObserver;
import java.net.http.HttpResponse;
import jdk.internal.net.http.ResponseSubscribers;

/**
 * A tap the JDK treats as one of its own subscribers: it then hands the body on the thread that
 * read it, as it does to the application's subscriber when no tap is there, instead of through
 * the client's executor. It needs the executor exactly when the subscriber it taps does.
 *
 * <p>Compiled apart from the other helpers (see this module's pom), against the JDK's
 * non-exported {@code jdk.internal.net.http}; linked only once that package is exported to the
 * helpers ({@link TrustedTaps}).
 */
final class TrustedTappedSubscriber extends TappedSubscriber implements ResponseSubscribers.TrustedSubscriber<Object> {

    TrustedTappedSubscriber(HttpResponse.BodySubscriber<Object> delegate, BodyObserver observer) {
        super(delegate, observer);
    }

    /** The JDK's own answer for the subscriber tapped: yes unless it is one of the JDK's that needs none. */
    @Override
    public boolean needsExecutor() {
        return ResponseSubscribers.TrustedSubscriber.needsExecutor(delegate);
    }

    /** Loaded by name from {@link TrustedTaps}. */
    static final class Maker implements TappedSubscriber.Maker {
        @Override
        public TappedSubscriber tap(HttpResponse.BodySubscriber<Object> delegate, BodyObserver observer) {
            return new TrustedTappedSubscriber(delegate, observer);
        }
    }
}
