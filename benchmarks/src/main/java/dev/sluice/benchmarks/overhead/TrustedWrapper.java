package dev.sluice.benchmarks.overhead;

import java.net.http.HttpResponse;
import java.util.function.Function;
import jdk.internal.net.http.ResponseSubscribers;

/**
 * {@link WrappedBodySubscriber}'s wrapper made one of the JDK's trusted subscribers, as Sluice's
 * JDK-client tap is when the agent exports {@code jdk.internal.net.http} to its helpers. Compiled
 * apart (benchmarks/pom.xml); loaded by name, and only when that package is exported to it.
 */
final class TrustedWrapper<T> extends WrappedBodySubscriber.Wrapper<T>
        implements ResponseSubscribers.TrustedSubscriber<T> {

    TrustedWrapper(HttpResponse.BodySubscriber<T> delegate) {
        super(delegate);
    }

    @Override
    public boolean needsExecutor() {
        return ResponseSubscribers.TrustedSubscriber.needsExecutor(delegate);
    }

    /** Loaded by name from {@link WrappedBodySubscriber}. */
    static final class Maker
            implements Function<HttpResponse.BodySubscriber<String>, HttpResponse.BodySubscriber<String>> {
        @Override
        public HttpResponse.BodySubscriber<String> apply(HttpResponse.BodySubscriber<String> delegate) {
            return new TrustedWrapper<>(delegate);
        }
    }
}
