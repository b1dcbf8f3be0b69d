package dev.sluice.simulator.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.simulator.Algorithm;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.FakeClock;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Scope;
import dev.sluice.simulator.ledger.Exchange;
import dev.sluice.simulator.ledger.Ledger;
import dev.sluice.simulator.ledger.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/** Over random arrivals, no window ever admits more than its limit allows. */
class QuotaBookInvariantTest {
    private static final ScopeKeys KEY = new ScopeKeys("k", "o", "m");

    private static Limit limit(long capacity, Duration window, Algorithm algorithm, long burst) {
        return new Limit(Dimension.REQUESTS, capacity, window, algorithm, Scope.API_KEY, burst, "l");
    }

    private static Ledger drive(QuotaBook book, FakeClock clock, long seed) {
        Random random = new Random(seed);
        Ledger ledger = new Ledger(clock);
        for (int i = 0; i < 3000; i++) {
            clock.advance(Duration.ofMillis(random.nextInt(random.nextBoolean() ? 5 : 120)));
            if (book.admit(KEY, Map.of(Dimension.REQUESTS, 1L)).admitted()) {
                ledger.record(new Exchange(
                        0,
                        clock.instant(),
                        clock.instant(),
                        null,
                        "k",
                        "o",
                        null,
                        null,
                        "m",
                        "/",
                        false,
                        200,
                        Outcome.ADMITTED,
                        null,
                        0,
                        0,
                        null));
            }
        }
        return ledger;
    }

    @RepeatedTest(5)
    void aTokenBucketNeverAdmitsMoreThanBurstPlusRefillInAnyWindow() {
        FakeClock clock = new FakeClock();
        long seed = System.nanoTime();
        QuotaBook book = new QuotaBook(List.of(limit(10, Duration.ofSeconds(1), Algorithm.TOKEN_BUCKET, 3)), clock);
        Ledger ledger = drive(book, clock, seed);
        // At most the burst plus what refills within the window.
        assertThat(ledger.maxAdmittedInAnyWindow(Duration.ofSeconds(1)))
                .as("seed %d", seed)
                .isLessThanOrEqualTo(13);
        assertThat(ledger.maxAdmittedInAnyWindow(Duration.ofMillis(100)))
                .as("seed %d", seed)
                .isLessThanOrEqualTo(4);
    }

    @RepeatedTest(5)
    void aFixedWindowNeverAdmitsMoreThanItsCapacityPerWindow() {
        FakeClock clock = new FakeClock();
        long seed = System.nanoTime();
        QuotaBook book = new QuotaBook(List.of(limit(7, Duration.ofSeconds(1), Algorithm.FIXED_WINDOW, 0)), clock);
        Ledger ledger = drive(book, clock, seed);
        assertThat(ledger.maxAdmittedInAnyFixedWindow(Duration.ofSeconds(1)))
                .as("seed %d", seed)
                .isEqualTo(7);
    }

    @Test
    void concurrentCallersNeverOverAdmit() throws Exception {
        FakeClock clock = new FakeClock(); // frozen: nothing refills during the race
        QuotaBook book = new QuotaBook(
                List.of(
                        limit(100, Duration.ofMinutes(1), Algorithm.TOKEN_BUCKET, 0),
                        new Limit(
                                Dimension.CONCURRENCY,
                                1000,
                                Duration.ZERO,
                                Algorithm.TOKEN_BUCKET,
                                Scope.API_KEY,
                                0,
                                "c")),
                clock);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger admitted = new AtomicInteger();
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            done.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 200; i++) {
                    if (book.admit(KEY, Map.of(Dimension.REQUESTS, 1L, Dimension.CONCURRENCY, 1L))
                            .admitted()) {
                        admitted.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : done) {
            f.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(admitted.get()).isEqualTo(100);
        assertThat(book.statuses(KEY)).extracting(LimitStatus::remaining).containsExactly(0L, 900L);
    }
}
