package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.store.QuotaStore;
import dev.sluice.core.store.StoreStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The local store, which also hands a test the governor's lock (as a fleet store's thread takes
 * it), so the test can show what a thread does while another holds it.
 */
final class LockHoldingStore implements QuotaStore {
    private final QuotaStore local = QuotaStore.local();
    private final UnaryOperator<Bucket> placed;
    private volatile Host host;

    LockHoldingStore() {
        this(UnaryOperator.identity());
    }

    /** {@code placed} may swap each bucket the local store places for another (a faulty one). */
    LockHoldingStore(UnaryOperator<Bucket> placed) {
        this.placed = placed;
    }

    /** Another thread holding the governor's lock from {@link #begin} until {@link #end}. */
    static final class Hold {
        /** Long enough for any test; short enough that a thread wrongly waiting for the lock fails a test soon. */
        private static final long MOST_SECONDS = 5;

        private final LockHoldingStore store;
        private final CountDownLatch letGo = new CountDownLatch(1);
        private volatile boolean held;
        private CompletableFuture<Void> holder;

        Hold(LockHoldingStore store) {
            this.store = store;
        }

        /** Returns once the other thread holds the lock. */
        void begin() throws InterruptedException {
            CountDownLatch holding = new CountDownLatch(1);
            holder = CompletableFuture.runAsync(() -> store.host.withLock((nowNanos, nowMillis) -> {
                held = true;
                holding.countDown();
                try {
                    letGo.await(MOST_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                held = false;
                return null;
            }));
            assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        }

        /** Whether the other thread still holds the lock (it lets go by itself after a few seconds). */
        boolean isHeld() {
            return held;
        }

        /** Lets go and returns once the other thread has unlocked. */
        void end() throws Exception {
            letGo.countDown();
            holder.get(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void attach(Host host) {
        this.host = host;
    }

    @Override
    public Bucket place(Limit limit, String scopeValue, Bucket bucket, long nowNanos, long nowMillis) {
        return placed.apply(local.place(limit, scopeValue, bucket, nowNanos, nowMillis));
    }

    @Override
    public void want(Object waiter, Bucket[] buckets, long[] amounts) {
        local.want(waiter, buckets, amounts);
    }

    @Override
    public void forget(Object waiter) {
        local.forget(waiter);
    }

    @Override
    public boolean sharesAny() {
        return local.sharesAny();
    }

    @Override
    public StoreStatus status() {
        return local.status();
    }

    @Override
    public void close() {
        local.close();
    }
}
