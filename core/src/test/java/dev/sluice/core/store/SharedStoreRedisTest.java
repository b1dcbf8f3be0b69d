package dev.sluice.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.config.StoreConfig;
import dev.sluice.core.Admission;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorBuilder;
import dev.sluice.core.LearnedBudget;
import dev.sluice.core.ProviderAnswer;
import dev.sluice.core.Usage;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.store.redis.RedisBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Several governors, as several JVMs would, sharing one real Redis: together they admit what one
 * governor would, and they keep admitting, within capacity / N each, while Redis is away.
 */
class SharedStoreRedisTest {

    /** A call of its own for each governor: a context caches the route of the governor that saw it. */
    private static CallContext call() {
        return CallContext.builder("openai").tenant("t").apiKeyId("k_1").build();
    }

    private RedisServer redis;
    private final List<Governor> governors = new ArrayList<>();

    @BeforeEach
    void startRedis() throws Exception {
        redis = RedisServer.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (Governor g : governors) {
            g.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private Governor governor(double leaseChunk, int instances, LimitSpec... limits) {
        StoreConfig config = StoreConfig.builder()
                .url(redis.url())
                .leaseChunk(leaseChunk)
                .instances(instances)
                .timeout(Duration.ofMillis(100))
                .build();
        GovernorBuilder b = Governor.builder().store(RedisBackend.store(config));
        for (LimitSpec l : limits) {
            b.limit(l);
        }
        Governor g = b.build();
        governors.add(g);
        return g;
    }

    private static LimitSpec requestsPerSecondWindow(long capacity) {
        return LimitSpec.builder("rps", Dimension.REQUESTS, capacity)
                .window(Duration.ofSeconds(1))
                .algorithm(Algorithm.FIXED_WINDOW)
                .shared(true)
                .build();
    }

    private static long deadline(long millis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void aBudgetIsOneForTheFleetAndRefusesOnEveryInstanceOnceSpent() throws Exception {
        LimitSpec budget = LimitSpec.builder("fleet-budget", Dimension.SPEND, 1_000_000)
                .calendar(dev.sluice.config.CalendarPeriod.DAY, java.time.LocalTime.MIDNIGHT, java.time.ZoneOffset.UTC)
                .shared(true)
                .build();
        Governor a = governor(0, 0, budget);
        Governor b = governor(0, 0, budget);
        Admission first = a.admit(call(), Demand.builder().spendMicros(700_000).build(), deadline(2_000));
        assertThat(first.isAdmitted()).isTrue();
        first.permit()
                .settleAndRelease(Usage.builder()
                        .spendMicros(600_000)
                        .reportedByProvider(true)
                        .build());

        // the other instance sees what the first spent: 0.40 left for the fleet
        await().atMost(5, TimeUnit.SECONDS).untilAsserted(() -> {
            Admission refused =
                    b.admit(call(), Demand.builder().spendMicros(500_000).build(), deadline(2_000));
            assertThat(refused.isAdmitted()).isFalse();
            assertThat(refused.rejection().decision()).isEqualTo(dev.sluice.core.GatewayDecision.BUDGET_EXHAUSTED);
        });
        // what the first call did not use goes back to the fleet once its instance gives its idle stock back
        long asked = System.nanoTime();
        AtomicReference<Admission> fitting = new AtomicReference<>();
        await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
            Admission fits =
                    b.admit(call(), Demand.builder().spendMicros(400_000).build(), deadline(2_000));
            String why = (fits.isAdmitted() ? "admitted" : fits.rejection().toString()) + " A "
                    + a.controls().budgetStatuses("fleet-budget") + " B "
                    + b.controls().budgetStatuses("fleet-budget");
            assertThat(fits.isAdmitted()).as(why).isTrue();
            fitting.set(fits);
        });
        System.out.printf(
                "a refund reached the other instance of the fleet within %d ms%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked));
        Admission fits = fitting.get();
        fits.permit()
                .settleAndRelease(Usage.builder()
                        .spendMicros(400_000)
                        .reportedByProvider(true)
                        .build());
        Admission none = a.admit(call(), Demand.builder().spendMicros(1).build(), deadline(2_000));
        assertThat(none.isAdmitted()).as("the fleet spent the whole budget").isFalse();
    }

    @Test
    void threeGovernorsAtThreeTimesTheLimitNeverOverAdmitAWindow() throws Exception {
        for (double chunk : new double[] {0.05, 0}) {
            governors.forEach(Governor::close);
            governors.clear();
            long capacity = 60;
            ConcurrentHashMap<Long, AtomicLong> definite = new ConcurrentHashMap<>();
            AtomicLong admitted = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            long end = System.currentTimeMillis() + 2_200;
            for (int gi = 0; gi < 3; gi++) {
                Governor g = governor(chunk, 0, requestsPerSecondWindow(capacity));
                for (int t = 0; t < 3; t++) {
                    CallContext call = call();
                    Thread th = new Thread(() -> {
                        while (System.currentTimeMillis() < end) {
                            long before = System.currentTimeMillis();
                            Admission a;
                            try {
                                a = g.admit(call, Demand.oneRequest(), deadline(300));
                            } catch (InterruptedException e) {
                                return;
                            }
                            long after = System.currentTimeMillis();
                            if (a.isAdmitted()) {
                                admitted.incrementAndGet();
                                if (before / 1000 == after / 1000) {
                                    definite.computeIfAbsent(before / 1000, w -> new AtomicLong())
                                            .incrementAndGet();
                                }
                                a.permit().settleAndRelease(Usage.NONE);
                                // a caller at 3x the limit: 60 per window over 9 threads
                                sleepQuietly(40);
                            }
                        }
                    });
                    threads.add(th);
                    th.start();
                }
            }
            for (Thread th : threads) {
                th.join();
            }
            for (AtomicLong n : definite.values()) {
                assertThat(n.get())
                        .as("admitted in one window, leaseChunk %s", chunk)
                        .isLessThanOrEqualTo(capacity);
            }
            // and the fleet used the limit: at least 2 full windows' worth over 2.2 s
            assertThat(admitted.get()).as("admitted, leaseChunk %s", chunk).isGreaterThanOrEqualTo(2 * capacity);
        }
    }

    @Test
    void exactReservationsCostAboutOneRedisCallPerAdmissionAndLeasesFarFewer() throws Exception {
        LimitSpec tpm = LimitSpec.builder("tpm", Dimension.TOTAL_TOKENS, 1_000_000)
                .window(Duration.ofMinutes(1))
                .shared(true)
                .build();
        double[] perAdmission = new double[2];
        double[] chunks = {0, 0.05};
        for (int c = 0; c < 2; c++) {
            Governor g = governor(chunks[c], 1, tpm);
            CallContext call = call();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> g.controls().store().status().calls() > 0);
            long before = g.controls().store().status().calls();
            int n = 400;
            for (int i = 0; i < n; i++) {
                Admission a = g.admit(
                        call,
                        Demand.builder().inputTokens(100).outputTokens(100).build(),
                        deadline(2_000));
                assertThat(a.isAdmitted()).isTrue();
                a.permit().settleAndRelease(usage(100, 100));
            }
            perAdmission[c] = (double) (g.controls().store().status().calls() - before) / n;
            g.close();
        }
        System.out.printf(
                "FIGURES Redis calls per admission: %.3f without leasing, %.4f with leases of 5%%%n",
                perAdmission[0], perAdmission[1]);
        assertThat(perAdmission[0])
                .as("Redis calls per admission without leasing")
                .isBetween(0.5, 2.5);
        assertThat(perAdmission[1])
                .as("Redis calls per admission with leases of 5%")
                .isLessThan(0.1);
    }

    @Test
    void whenRedisStopsEachGovernorAdmitsFromItsShareAndComesBackWhenRedisDoes() throws Exception {
        LimitSpec rps = LimitSpec.builder("rps", Dimension.REQUESTS, 40)
                .window(Duration.ofSeconds(1))
                .shared(true)
                .build();
        Governor a = governor(0.05, 2, rps);
        Governor b = governor(0.05, 2, rps);
        CallContext callA = call();
        CallContext callB = call();
        for (Governor g : List.of(a, b)) {
            Admission adm = g.admit(g == a ? callA : callB, Demand.oneRequest(), deadline(1_000));
            assertThat(adm.isAdmitted()).isTrue();
            adm.permit().settleAndRelease(Usage.NONE);
        }
        redis.stop();
        // calls keep being admitted while Redis is away (no call lost), within 40/2 per second each
        AtomicInteger admittedDuringOutage = new AtomicInteger();
        long outageEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500);
        while (System.nanoTime() < outageEnd) {
            Admission adm = a.admit(callA, Demand.oneRequest(), deadline(1_000));
            assertThat(adm.isAdmitted())
                    .as("admitted during the outage: %s", a.controls().store().status())
                    .isTrue();
            adm.permit().settleAndRelease(Usage.NONE);
            admittedDuringOutage.incrementAndGet();
        }
        assertThat(a.controls().store().status().isFallback()).isTrue();
        assertThat(a.controls().store().status().mode()).isEqualTo("fallback (capacity/2)");
        // 1.5 s at 20/s per share, plus a full share at the start
        assertThat(admittedDuringOutage.get()).isBetween(10, 20 + 30 + 2);

        redis.startAgain();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !a.controls().store().status().isFallback()
                        && !b.controls().store().status().isFallback());
        assertThat(a.controls().store().status().recoveries()).isEqualTo(1);
        Admission after = b.admit(callB, Demand.oneRequest(), deadline(2_000));
        assertThat(after.isAdmitted()).isTrue();
        after.permit().settleAndRelease(Usage.NONE);
    }

    /** Two callers per governor, far above the rate, counting what is admitted between two moments. */
    private static final class Callers {
        private final List<Thread> threads = new ArrayList<>();
        private final AtomicLong countFrom = new AtomicLong(Long.MAX_VALUE);
        private final AtomicLong countTo = new AtomicLong(Long.MAX_VALUE);
        private final AtomicInteger counted = new AtomicInteger();

        /** Started, and a second later: callers far above the rate keep the shared bucket empty from then on. */
        static Callers keepingItEmpty(List<Governor> fleet) throws InterruptedException {
            Callers callers = new Callers(fleet);
            Thread.sleep(1_000);
            return callers;
        }

        private Callers(List<Governor> fleet) {
            for (Governor g : fleet) {
                for (int t = 0; t < 2; t++) {
                    CallContext call = call();
                    Thread th = new Thread(() -> callUntilCounted(g, call));
                    threads.add(th);
                    th.start();
                }
            }
        }

        private void callUntilCounted(Governor g, CallContext call) {
            while (System.nanoTime() - countTo.get() < 0) {
                Admission a;
                try {
                    a = g.admit(call, Demand.oneRequest(), deadline(200));
                } catch (InterruptedException e) {
                    return;
                }
                if (a.isAdmitted()) {
                    long at = System.nanoTime();
                    if (at - countFrom.get() >= 0 && at - countTo.get() < 0) {
                        counted.incrementAndGet();
                    }
                    a.permit().settleAndRelease(Usage.NONE);
                }
            }
        }

        /** Counts from now for {@code millis}; the callers stop then. */
        void countFor(long millis) {
            long from = System.nanoTime();
            countFrom.set(from);
            countTo.set(from + TimeUnit.MILLISECONDS.toNanos(millis));
        }

        int awaitCount() throws InterruptedException {
            for (Thread th : threads) {
                th.join();
            }
            return counted.get();
        }
    }

    /** Two governors, two JVMs of a fleet of two, sharing a token bucket of {@code perSecond} requests a second. */
    private List<Governor> twoGovernorsSharingATokenBucket(long perSecond) {
        LimitSpec rps = sharedRequestBucket("rps", perSecond, Duration.ofSeconds(1));
        return List.of(governor(0.05, 2, rps), governor(0.05, 2, rps));
    }

    /** A token bucket of {@code capacity} requests a {@code window}, shared through Redis. */
    private static LimitSpec sharedRequestBucket(String id, long capacity, Duration window) {
        return LimitSpec.builder(id, Dimension.REQUESTS, capacity)
                .window(window)
                .algorithm(Algorithm.TOKEN_BUCKET)
                .shared(true)
                .build();
    }

    /**
     * Redis stalls past the store's timeout while two governors keep a shared token bucket empty:
     * each admits from its share during the fallback, and when Redis answers again what the shares
     * admitted is charged to the shared bucket, which went on refilling meanwhile. Without that
     * charge the fleet admitted the stall's refill twice (76 in 3 s for 60), which a provider
     * counting the same calls refuses.
     */
    @Test
    void aSlowSpellOfRedisAdmitsTheSharedRateOnceAcrossTheFallbackAndBack() throws Exception {
        long perSecond = 20;
        List<Governor> fleet = twoGovernorsSharingATokenBucket(perSecond);
        Callers callers = Callers.keepingItEmpty(fleet);
        callers.countFor(3_000);
        Thread.sleep(1_000);
        redis.pauseClients(700);
        int counted = callers.awaitCount();
        System.out.printf(
                "FIGURES a 0.7 s stall of Redis: the fleet admitted %d in 3 s at %d a second%n", counted, perSecond);
        assertThat(fleet)
                .as("the stall made the governors fall back and come back")
                .allSatisfy(g -> {
                    assertThat(g.controls().store().status().fallbacks()).isEqualTo(1);
                    assertThat(g.controls().store().status().recoveries()).isEqualTo(1);
                });
        // 3 s at 20 a second; the leases of 5 % (one call each) and a call in flight at each edge
        assertThat(counted)
                .as("admitted by the fleet in 3 s at %d a second, a 0.7 s stall of Redis in the middle", perSecond)
                .isBetween((int) (2.5 * perSecond), (int) (3 * perSecond) + 4);
    }

    /**
     * A stall longer than the shared bucket takes to refill: the shared bucket is full when Redis
     * answers again and the shares, used to the end, say how little is left. The shares are charged
     * no more than that, so the fleet goes on at the rate instead of paying off the whole stall.
     */
    @Test
    void aLongStallOfRedisLeavesTheFleetNoDebtBeyondWhatItsSharesUsed() throws Exception {
        long perSecond = 20;
        List<Governor> fleet = twoGovernorsSharingATokenBucket(perSecond);
        Callers callers = Callers.keepingItEmpty(fleet);
        redis.pauseClients(2_500);
        await().atMost(Duration.ofSeconds(2))
                .until(() -> fleet.get(0).controls().store().status().isFallback());
        await().atMost(Duration.ofSeconds(5))
                .until(() -> fleet.stream()
                        .noneMatch(g -> g.controls().store().status().isFallback()));
        callers.countFor(1_500);
        int counted = callers.awaitCount();
        System.out.printf(
                "FIGURES the 1.5 s after a 2.5 s stall of Redis: the fleet admitted %d at %d a second%n",
                counted, perSecond);
        assertThat(counted)
                .as("admitted by the fleet in the 1.5 s after Redis answered again, at %d a second", perSecond)
                .isBetween((int) (0.75 * perSecond), (int) (1.5 * perSecond) + 4);
    }

    /**
     * The charge for what a share admitted reaches Redis when Redis answers again, not with the
     * JVM's next call: a JVM that goes quiet after a fallback would otherwise leave it unsent, and a
     * second fallback before its next call would drop it.
     */
    @Test
    void whatAShareAdmittedIsChargedWhenRedisAnswersAgainNotAtTheNextCall() throws Exception {
        Governor g = governor(0, 1, sharedRequestBucket("slow", 20, Duration.ofMinutes(1)));
        CallContext call = call();
        Admission first = g.admit(call, Demand.oneRequest(), deadline(2_000));
        assertThat(first.isAdmitted()).isTrue();
        first.permit().settleAndRelease(Usage.NONE);
        assertThat(levelInRedis("slow")).as("19 left after the first call").isBetween(18.9, 19.5);
        // idle for longer than the store keeps an active bucket in its passes (0.5 s, a heartbeat more)
        Thread.sleep(1_500);

        redis.pauseClients(1_500);
        await().atMost(Duration.ofSeconds(2))
                .until(() -> g.controls().store().status().isFallback());
        for (int i = 0; i < 10; i++) {
            Admission a = g.admit(call, Demand.oneRequest(), deadline(200));
            assertThat(a.isAdmitted()).as("admitted from the share, call %d", i).isTrue();
            a.permit().settleAndRelease(Usage.NONE);
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !g.controls().store().status().isFallback());
        // no call after the recovery: the charge must go on its own (20 a minute refills 1 in 3 s)
        await().atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(levelInRedis("slow"))
                        .as("Redis's level after 10 calls admitted from the share")
                        .isLessThan(11.0));
    }

    /** A token bucket's level as Redis last stored it (its key: {@code RedisBackend.BUCKET_PREFIX} and the id). */
    private double levelInRedis(String limitId) {
        try (Jedis jedis = new Jedis("127.0.0.1", redis.port())) {
            return Double.parseDouble(jedis.hget("{sluice}:b:" + limitId, "l"));
        }
    }

    @Test
    void aDeadInstancesConcurrencyHoldingsExpireAndTheOthersGetTheSlots() throws Exception {
        LimitSpec slots = LimitSpec.builder("slots", Dimension.CONCURRENCY, 3)
                .shared(true)
                .build();
        // an instance that takes every slot and then dies: it never announces itself again
        RedisBackend dead =
                RedisBackend.of(StoreConfig.builder().url(redis.url()).build());
        SyncRequest r = new SyncRequest("dead-1", 600);
        SyncRequest.Entry e = new SyncRequest.Entry("slots", SyncRequest.CONCURRENCY, 3, 0, 0, 0, 0, "dead-1/1");
        e.held = 3;
        r.add(e);
        dead.sync(r);
        long diedAt = System.nanoTime();
        dead.close();

        Governor g = governor(0, 2, slots);
        Admission a = g.admit(call(), Demand.oneRequest(), deadline(5_000));
        long sinceDeathMillis = (System.nanoTime() - diedAt) / 1_000_000;
        assertThat(a.isAdmitted()).isTrue();
        // its heartbeat said 600 ms; the slots come back then, not before and not much later
        assertThat(sinceDeathMillis)
                .as("slots came back after the dead instance expired")
                .isBetween(400L, 2_500L);
        a.permit().settleAndRelease(Usage.NONE);
    }

    @Test
    void aSharedWindowMirroringTheProviderAdmitsNothingInItsLastMoments() throws Exception {
        LimitSpec providers = LimitSpec.builder("provider-rps", Dimension.REQUESTS, 30)
                .window(Duration.ofSeconds(1))
                .algorithm(Algorithm.FIXED_WINDOW)
                .mirrorsProvider(true)
                .build();
        Governor g = governor(0, 1, providers);
        // warm the store up, then wait for the closing stretch: the last 100 ms of a 1 s window
        g.admit(call(), Demand.oneRequest(), deadline(2_000)).permit().settleAndRelease(Usage.NONE);
        while (System.currentTimeMillis() % 1000 < 930) {
            Thread.sleep(5);
        }
        long asked = System.currentTimeMillis();
        Admission a = g.admit(call(), Demand.oneRequest(), deadline(1_000));
        long admitted = System.currentTimeMillis();
        assertThat(a.isAdmitted()).isTrue();
        // room was left in that window (1 of 30 used), yet the call waits for the next window
        assertThat(admitted / 1000)
                .as("asked at %d, admitted at %d", asked, admitted)
                .isGreaterThan(asked / 1000);
        a.permit().settleAndRelease(Usage.NONE);
    }

    @Test
    void aBudgetLearnedFromHeadersIsOneBudgetForTheFleet() throws Exception {
        Governor a = governor(0, 2);
        Governor b = governor(0, 2);
        // both instances read the same headers: 20 requests a minute, all 20 left
        List<LearnedBudget> headers = List.of(new LearnedBudget("requests", Dimension.REQUESTS, 20, 20, 60_000));
        a.learner().learn(new ProviderAnswer(call(), headers));
        b.learner().learn(new ProviderAnswer(call(), headers));
        long admitted = 0;
        boolean aRefused = false;
        boolean bRefused = false;
        while (!aRefused || !bRefused) {
            Admission fromA = a.admit(call(), Demand.oneRequest(), deadline(150));
            Admission fromB = b.admit(call(), Demand.oneRequest(), deadline(150));
            aRefused |= !fromA.isAdmitted();
            bRefused |= !fromB.isAdmitted();
            admitted += (fromA.isAdmitted() ? 1 : 0) + (fromB.isAdmitted() ? 1 : 0);
            assertThat(admitted)
                    .as("admitted by the fleet under a learned budget of 20")
                    .isLessThanOrEqualTo(21);
        }
        // 20, and the refill of one request every 3 s during the loop
        assertThat(admitted).isGreaterThanOrEqualTo(18);

        // a lower remaining read by one instance lowers the budget for the other
        Thread.sleep(3_100); // at least one request refilled
        a.learner()
                .learn(new ProviderAnswer(
                        call(), List.of(new LearnedBudget("requests", Dimension.REQUESTS, 20, 0, 60_000))));
        Thread.sleep(100); // a's store thread sends it with its next pass, at once
        Admission afterLowering = b.admit(call(), Demand.oneRequest(), deadline(300));
        assertThat(afterLowering.isAdmitted()).as("b, after a read remaining 0").isFalse();
    }

    /**
     * A provider allowing 600 requests a minute but only 10 at once (OpenAI enforces per-minute
     * limits over shorter periods): once the fleet learned that burst, its shared bucket refills to
     * it (less the transit allowance one JVM's mirror keeps), never to the minute's capacity, however
     * long it was idle.
     */
    @Test
    void aLearnedBurstIsTheMostTheFleetAdmitsAtOnceAfterAnIdleSpell() throws Exception {
        Governor a = governor(0, 2);
        Governor b = governor(0, 2);
        List<LearnedBudget> headers = List.of(new LearnedBudget("requests", Dimension.REQUESTS, 600, 9, 60_000));
        a.learner().learn(new ProviderAnswer(call(), headers));
        b.learner().learn(new ProviderAnswer(call(), headers));
        Thread.sleep(3_000); // 30 requests' worth of refill at the minute's rate
        List<java.util.concurrent.CompletableFuture<Admission>> calls = new ArrayList<>();
        long until = deadline(200);
        for (int i = 0; i < 20; i++) {
            calls.add(a.admitAsync(call(), Demand.oneRequest(), until));
            calls.add(b.admitAsync(call(), Demand.oneRequest(), until));
        }
        long admitted = 0;
        for (java.util.concurrent.CompletableFuture<Admission> c : calls) {
            admitted += c.get(5, TimeUnit.SECONDS).isAdmitted() ? 1 : 0;
        }
        // the burst less the transit allowance (7.5), and what refilled in the 200 ms (2)
        assertThat(admitted)
                .as("admitted by the fleet within 200 ms of an idle spell")
                .isBetween(6L, 10L);
    }

    @Test
    void aCallLargerThanWhatTheFleetHasLeftWaitsForTheRefillNotForever() throws Exception {
        LimitSpec tokens = LimitSpec.builder("tokens", Dimension.TOTAL_TOKENS, 1_000)
                .window(Duration.ofSeconds(1))
                .shared(true)
                .build();
        Governor a = governor(0, 2, tokens);
        Governor b = governor(0, 2, tokens);
        Admission big = a.admit(call(), Demand.builder().inputTokens(900).build(), deadline(1_000));
        assertThat(big.isAdmitted()).isTrue();
        long start = System.nanoTime();
        Admission next = b.admit(call(), Demand.builder().inputTokens(600).build(), deadline(2_000));
        long waited = (System.nanoTime() - start) / 1_000_000;
        assertThat(next.isAdmitted()).isTrue();
        // 500 more tokens at 1000/s: about half a second, never at once
        assertThat(waited).isBetween(350L, 1_500L);
        big.permit().settleAndRelease(usage(900, 0));
        next.permit().settleAndRelease(usage(600, 0));
    }

    private static Usage usage(long input, long output) {
        return Usage.builder().inputTokens(input).outputTokens(output).build();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
