package dev.sluice.instrumentation.awssdk.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.DroppedBodies;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * The body of a governed 2xx answer of an asynchronous AWS HTTP client (Netty, CRT), as the SDK
 * subscribes to it: each buffer is reported to the governor before the SDK gets it, and so are the
 * end, a failure and a cancel. A body nobody ever subscribes to is released when it becomes
 * unreachable (see {@link DroppedBodies}).
 */
final class TappedPublisher implements Publisher<ByteBuffer> {

    private final Publisher<ByteBuffer> source;
    private final Settle settle;
    private final Unsubscribed unsubscribed;

    TappedPublisher(Publisher<ByteBuffer> source, BodyObserver observer) {
        this.source = source;
        this.settle = new Settle(observer);
        this.unsubscribed = new Unsubscribed(source, settle);
        DroppedBodies.watch(this, unsubscribed);
    }

    @Override
    public void subscribe(Subscriber<? super ByteBuffer> subscriber) {
        unsubscribed.subscribed = true; // the subscription reports from now on, reachable or not
        source.subscribe(new Tap(subscriber, settle));
    }

    /**
     * What tells the observer that the client's exchange failed (an abort, a reset), whether or not
     * anyone subscribed; it holds the observer, not this publisher, so the client may keep it.
     */
    Consumer<Throwable> failure() {
        return settle::failed;
    }

    /** Nobody will read this body (the governance discarded its answer): the observer hears a close, once. */
    void discard() {
        settle.run();
    }

    /**
     * The release of a body dropped before anyone subscribed: its observer hears a close, and the
     * client's body is cancelled, which ends the exchange and gives its connection back (the client
     * holds it for a subscriber that will never come). Nothing once someone subscribed.
     */
    private static final class Unsubscribed implements Runnable {
        private final Publisher<ByteBuffer> source;
        private final Settle settle;
        volatile boolean subscribed;

        Unsubscribed(Publisher<ByteBuffer> source, Settle settle) {
            this.source = source;
            this.settle = settle;
        }

        @Override
        public void run() {
            if (subscribed) {
                return;
            }
            try {
                source.subscribe(new Subscriber<ByteBuffer>() {
                    @Override
                    public void onSubscribe(Subscription s) {
                        s.cancel();
                    }

                    @Override
                    public void onNext(ByteBuffer buffer) {}

                    @Override
                    public void onError(Throwable failure) {}

                    @Override
                    public void onComplete() {}
                });
            } catch (Throwable refused) {
                // the client would not take the cancel (its body had a subscriber, its channel is gone):
                // the permit is given back all the same, or it waits out its lease
            } finally {
                settle.run(); // once the client was told: the permit is not given back ahead of the connection
            }
        }
    }

    /** Reports to the observer once: the end, a failure or a cancel (whichever comes first settles). */
    private static final class Settle implements Runnable {
        private final BodyObserver observer;
        private final AtomicBoolean done = new AtomicBoolean();
        /** Lent to the observer chunk by chunk (the subscriber's buffers may be direct, or be read on). */
        private byte[] scratch = new byte[0];

        Settle(BodyObserver observer) {
            this.observer = observer;
        }

        void bytes(ByteBuffer buffer) {
            int n = buffer.remaining();
            if (n == 0 || done.get()) {
                return;
            }
            if (scratch.length < n) {
                scratch = new byte[Math.max(n, Math.min(1 << 16, scratch.length * 2))];
            }
            buffer.duplicate().get(scratch, 0, n);
            try {
                observer.onBytes(scratch, 0, n);
            } catch (Throwable ignored) {
                // the observer must never break the application's body
            }
        }

        void ended() {
            if (done.compareAndSet(false, true)) {
                try {
                    observer.onEnd();
                } catch (Throwable ignored) {
                    // see bytes
                }
            }
        }

        void failed(Throwable failure) {
            if (done.compareAndSet(false, true)) {
                try {
                    observer.onFailure(failure);
                } catch (Throwable ignored) {
                    // see bytes
                }
            }
        }

        /** A cancel, or a body dropped unsubscribed. */
        @Override
        public void run() {
            if (done.compareAndSet(false, true)) {
                try {
                    observer.onClose();
                } catch (Throwable ignored) {
                    // see bytes
                }
            }
        }
    }

    /** Between the client's publisher and the SDK's subscriber. */
    private static final class Tap implements Subscriber<ByteBuffer>, Subscription {
        private final Subscriber<? super ByteBuffer> downstream;
        private final Settle settle;
        private volatile Subscription upstream;

        Tap(Subscriber<? super ByteBuffer> downstream, Settle settle) {
            this.downstream = downstream;
            this.settle = settle;
        }

        @Override
        public void onSubscribe(Subscription s) {
            upstream = s;
            downstream.onSubscribe(this);
        }

        @Override
        public void onNext(ByteBuffer buffer) {
            settle.bytes(buffer);
            downstream.onNext(buffer);
        }

        @Override
        public void onError(Throwable failure) {
            settle.failed(failure);
            downstream.onError(failure);
        }

        @Override
        public void onComplete() {
            settle.ended();
            downstream.onComplete();
        }

        @Override
        public void request(long n) {
            upstream.request(n);
        }

        @Override
        public void cancel() {
            settle.run();
            upstream.cancel();
        }
    }
}
