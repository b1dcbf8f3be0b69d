package dev.sluice.core;

import static dev.sluice.config.Dimension.REQUESTS;
import static dev.sluice.config.Dimension.TOTAL_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.store.QuotaStore;
import dev.sluice.core.store.StoreStatus;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A caller reporting its answer's rate-limit figures never waits for the governor's lock: the
 * figures wait in a backlog, and the next call admitted applies them before it is decided, so
 * nothing they say is lost or applied too late to matter.
 */
class AnswerBacklogTest {

    private static final long CAPACITY = 600; // a minute

    private final FakeClock clock = new FakeClock();
    private final ManualTimer timer = new ManualTimer(clock);
    private final LockHoldingStore store = new LockHoldingStore();
    private final Governor governor =
            Governor.builder().clock(clock).timer(timer).store(store).build();

    @AfterEach
    void close() {
        governor.close();
    }

    private static CallContext call() {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("t")
                .apiKeyId("k_1")
                .build();
    }

    private static List<Governor.LearnedBudget> remaining(long remaining) {
        return List.of(new Governor.LearnedBudget("requests", REQUESTS, CAPACITY, remaining, 60_000));
    }

    private long room() {
        Bucket b = governor.providerScopes().get(0).learnedBuckets()[0];
        return b.roomAsCounted(clock.nanoTime(), clock.epochMillis()); // read after the holder let go
    }

    @Test
    void aCallerReportsItsAnswerWithoutWaitingForTheLockAndTheNextAdmissionAppliesIt() throws Exception {
        governor.learn(call(), remaining(CAPACITY));
        for (int i = 0; i < 5; i++) { // enough admissions that the lane has room lent to this thread
            governor.tryAdmit(call(), Demand.oneRequest()).permit().settle(Usage.NONE);
        }
        CountDownLatch letGo = new CountDownLatch(1);
        AtomicBoolean released = new AtomicBoolean();
        CompletableFuture<Void> holder = holdTheLockUntil(letGo, released);

        // someone Sluice cannot see took all but 100
        governor.learn(call(), remaining(100));
        boolean learnedWhileLocked = !released.get();
        letGo.countDown();
        holder.get(30, TimeUnit.SECONDS);

        assertThat(learnedWhileLocked)
                .as("learn returned while another thread held the lock")
                .isTrue();
        Permit next = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        assertThat(next).as("the call still goes").isNotNull();
        assertThat(room())
                .as("the figure was applied before the call was decided")
                .isBetween(98L, 99L);
        next.settle(Usage.NONE);
    }

    @Test
    void everyAnswerThatWaitedIsApplied() throws Exception {
        governor.learn(call(), remaining(CAPACITY));
        CountDownLatch letGo = new CountDownLatch(1);
        CompletableFuture<Void> holder = holdTheLockUntil(letGo, new AtomicBoolean());
        governor.learn(call(), remaining(100));
        governor.learn(call(), List.of(new Governor.LearnedBudget("tokens", TOTAL_TOKENS, 150_000, 150_000, 60_000)));
        letGo.countDown();
        holder.get(30, TimeUnit.SECONDS);

        Permit next = governor.tryAdmit(call(), Demand.oneRequest()).permit();
        Bucket[] learned = governor.providerScopes().get(0).learnedBuckets();
        assertThat(learned).hasSize(2);
        assertThat(room()).isBetween(98L, 99L);
        assertThat(learned[1].limit().capacity()).isEqualTo(150_000);
        next.settle(Usage.NONE);
    }

    /** Another thread takes the governor's lock and keeps it until {@code letGo}; returns once it holds it. */
    private CompletableFuture<Void> holdTheLockUntil(CountDownLatch letGo, AtomicBoolean released)
            throws InterruptedException {
        CountDownLatch holding = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> store.host.withLock((nowNanos, nowMillis) -> {
            holding.countDown();
            try {
                letGo.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            released.set(true);
            return null;
        }));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        return holder;
    }

    /** The local store, which also hands the test the governor's lock (as a fleet store's thread takes it). */
    private static final class LockHoldingStore implements QuotaStore {
        private final QuotaStore local = QuotaStore.local();
        volatile Host host;

        @Override
        public void attach(Host host) {
            this.host = host;
        }

        @Override
        public Bucket place(Limit limit, String scopeValue, Bucket bucket, long nowNanos, long nowMillis) {
            return local.place(limit, scopeValue, bucket, nowNanos, nowMillis);
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
}
