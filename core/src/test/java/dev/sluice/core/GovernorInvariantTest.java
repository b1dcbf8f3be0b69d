package dev.sluice.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Random interleavings of admit, settle, cancel and abandon (left to the lease reaper) over several
 * threads and a hierarchy of buckets, while time moves: in every window the usage admitted never
 * exceeds what the limit allows, and at the end nothing stays reserved.
 */
class GovernorInvariantTest {

    private static final int THREADS = 4;
    private static final int OPS_PER_THREAD = 3_000;
    private static final int CONCURRENCY = 8;
    private static final String[] TENANTS = {"t0", "t1", "t2", "t3"};
    private static final String[] KEYS = {"k_a", "k_b"};

    /** Token buckets on three levels, the part both hierarchies below share. */
    private static GovernorBuilder tokenBuckets(FakeClock clock, ManualTimer timer) {
        return Governor.builder()
                .clock(clock)
                .timer(timer)
                .leaseTimeout(Duration.ofSeconds(20))
                .limit(LimitSpec.perWindow("org-tokens", Dimension.TOTAL_TOKENS, 10_000, Duration.ofSeconds(10)))
                .limit(LimitSpec.builder("tenant-tokens", Dimension.TOTAL_TOKENS, 4_000)
                        .window(Duration.ofSeconds(10))
                        .level(ScopeLevel.TENANT)
                        .build())
                .limit(LimitSpec.builder("key-output", Dimension.OUTPUT_TOKENS, 3_000)
                        .window(Duration.ofSeconds(10))
                        .level(ScopeLevel.API_KEY)
                        .build());
    }

    private static GovernorBuilder hierarchy(FakeClock clock, ManualTimer timer) {
        return tokenBuckets(clock, timer)
                .limit(LimitSpec.builder("org-requests", Dimension.REQUESTS, 50)
                        .window(Duration.ofSeconds(5))
                        .algorithm(Algorithm.FIXED_WINDOW)
                        .build())
                .limit(LimitSpec.builder("tenant-requests-daily", Dimension.REQUESTS, 2_000)
                        .level(ScopeLevel.TENANT)
                        .dailyReset(java.time.LocalTime.of(10, 0, 30), java.time.ZoneId.of("America/Los_Angeles"))
                        .build())
                .limit(LimitSpec.builder("org-concurrency", Dimension.CONCURRENCY, CONCURRENCY)
                        .build());
    }

    /** How a permit ended, so its final use of each bucket is known. */
    private enum End {
        SETTLED,
        CANCELLED,
        ABANDONED
    }

    private static final class Record {
        final Permit permit;
        final End end;
        final Usage usage;

        Record(Permit permit, End end, Usage usage) {
            this.permit = permit;
            this.end = end;
            this.usage = usage;
        }

        long finalAmount(Bucket b, long amount) {
            switch (end) {
                case CANCELLED:
                    return 0;
                case ABANDONED:
                    return amount;
                default:
                    switch (b.limit().dimension()) {
                        case REQUESTS:
                            return amount;
                        case INPUT_TOKENS:
                            return usage.inputTokens();
                        case OUTPUT_TOKENS:
                            return usage.outputTokens();
                        case TOTAL_TOKENS:
                            return usage.totalTokens();
                        default:
                            return amount;
                    }
            }
        }
    }

    /**
     * Token buckets only, on every level: the paths the lock-free lane takes. Each worker reuses
     * one context per caller, as the exchange engine does across attempts, so the lane is used.
     */
    private static GovernorBuilder tokenBucketHierarchy(FakeClock clock, ManualTimer timer) {
        return tokenBuckets(clock, timer)
                .limit(LimitSpec.perWindow("org-requests", Dimension.REQUESTS, 320, Duration.ofSeconds(5)));
    }

    @RepeatedTest(3)
    void admittedUsageNeverExceedsAnyWindowAndNothingLeaks() throws Exception {
        FakeClock clock = new FakeClock();
        ManualTimer timer = new ManualTimer(clock);
        Governor governor = hierarchy(clock, timer).build();
        exercise(governor, clock, timer, false, CONCURRENCY);
    }

    @RepeatedTest(3)
    void theLockFreeLaneNeverExceedsAnyBucketAndNothingLeaks() throws Exception {
        List<Record> records = untilTheLaneIsUsed(false);
        long throughLane = throughLane(records);
        assertThat(throughLane).as("permits admitted through the lane").isPositive();
        assertThat(throughLane).as("permits admitted through the lock").isLessThan(records.size());
    }

    /**
     * As above, with every worker on the same stripe of lent room: their lane admissions then take
     * from one cell, race one another's compare-and-set, and their refunds meet on the same bucket
     * between loans. Found the refund that gave back room the refill had made up (HeadroomHistory):
     * 1 to 3 runs in 120 exceeded a bucket before it was fixed, none in 420 after.
     */
    @Test
    void theLaneHoldsWithEveryWorkerOnOneStripe() throws Exception {
        assertThat(throughLane(untilTheLaneIsUsed(true)))
                .as("permits admitted through the lane")
                .isPositive();
    }

    /**
     * Exercises a hierarchy of token buckets, again until the lane was used, at most three times.
     * The lane opens only when nobody waits; on a starved machine (six busy loops beside two
     * cores) a run now and then kept a queue the whole time and used the lane not once (2 in
     * 150). Each run checks every invariant; another run is made only to see the lane used.
     *
     * @return the last run's records
     */
    private static List<Record> untilTheLaneIsUsed(boolean oneStripe) throws Exception {
        List<Record> records = List.of();
        for (int run = 0; run < 3 && (run == 0 || throughLane(records) == 0); run++) {
            FakeClock clock = new FakeClock();
            ManualTimer timer = new ManualTimer(clock);
            Governor governor = tokenBucketHierarchy(clock, timer).build();
            records = exercise(governor, clock, timer, true, Integer.MAX_VALUE, oneStripe);
        }
        return records;
    }

    private static long throughLane(List<Record> records) {
        return records.stream().filter(r -> r.permit.admittedThroughLane()).count();
    }

    /**
     * Runs the workers and the clock, then checks that nothing leaked and every window held.
     *
     * @param reuseContexts whether each worker keeps one context per caller (the lane needs it)
     * @param concurrency the concurrency limit of the hierarchy
     */
    private static List<Record> exercise(
            Governor governor, FakeClock clock, ManualTimer timer, boolean reuseContexts, int concurrency)
            throws Exception {
        return exercise(governor, clock, timer, reuseContexts, concurrency, false);
    }

    /** As above; {@code oneStripe}: every worker gets the same stripe of the lane ({@link Lane#stripe}). */
    private static List<Record> exercise(
            Governor governor,
            FakeClock clock,
            ManualTimer timer,
            boolean reuseContexts,
            int concurrency,
            boolean oneStripe)
            throws Exception {
        ConcurrentLinkedQueue<Record> records = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<CompletableFuture<Admission>> pending = new ConcurrentLinkedQueue<>();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        CountDownLatch workersDone = new CountDownLatch(THREADS);
        long seed = System.nanoTime();

        int stripe = -1;
        for (int t = 0; t < THREADS; t++) {
            SplittableRandom random = new SplittableRandom(seed + t);
            Runnable work = () -> {
                List<Permit> held = new ArrayList<>();
                Map<String, CallContext> contexts = new HashMap<>();
                try {
                    for (int i = 0; i < OPS_PER_THREAD; i++) {
                        int op = random.nextInt(10);
                        if (op < 4 || held.isEmpty()) {
                            String tenant = TENANTS[random.nextInt(TENANTS.length)];
                            String key = KEYS[random.nextInt(KEYS.length)];
                            CallContext call = reuseContexts
                                    ? contexts.computeIfAbsent(tenant + key, k -> newContext(tenant, key))
                                    : newContext(tenant, key);
                            Demand demand = Demand.builder()
                                    .inputTokens(random.nextInt(400))
                                    .outputTokens(random.nextInt(400))
                                    .build();
                            if (random.nextBoolean()) {
                                Admission a = governor.tryAdmit(call, demand);
                                if (a.isAdmitted()) {
                                    enter(inFlight, maxInFlight);
                                    held.add(a.permit());
                                }
                            } else {
                                long deadline = clock.nanoTime() + random.nextInt(2_000) * 1_000_000L;
                                CompletableFuture<Admission> f = governor.admitAsync(call, demand, deadline);
                                if (random.nextInt(8) == 0) {
                                    f.cancel(false);
                                } else {
                                    pending.add(f);
                                }
                            }
                        } else {
                            Permit p = held.remove(random.nextInt(held.size()));
                            finish(p, random, records, inFlight);
                        }
                        collect(pending, held, inFlight, maxInFlight);
                    }
                    collect(pending, held, inFlight, maxInFlight);
                    for (Permit p : held) {
                        finish(p, random, records, inFlight);
                    }
                } finally {
                    workersDone.countDown();
                }
            };
            Thread worker = new Thread(work);
            // a thread's stripe is its id's low bits, given when it is made: make threads until one fits
            while (oneStripe && stripe >= 0 && (worker.getId() & (Lane.STRIPES - 1)) != stripe) {
                worker = new Thread(work);
            }
            stripe = (int) worker.getId() & (Lane.STRIPES - 1);
            worker.start();
        }
        SplittableRandom random = new SplittableRandom(seed - 1);
        while (!workersDone.await(0, TimeUnit.MILLISECONDS)) {
            // now and then a quiet spell long enough for buckets to fill up again (under the
            // 20 s lease): lent room must not add to a full bucket
            timer.advance(Duration.ofMillis(random.nextInt(200) == 0 ? random.nextInt(12_000) : random.nextInt(40)));
            Thread.yield();
        }
        // every queued call comes out: admitted (then finished here) or rejected at its deadline
        timer.advance(Duration.ofSeconds(3));
        List<Permit> late = new ArrayList<>();
        collect(pending, late, inFlight, maxInFlight);
        assertThat(pending).isEmpty();
        for (Permit p : late) {
            finish(p, random, records, inFlight);
        }
        // abandoned permits are reaped when their lease expires; a lane permit's lease starts when
        // it is registered, at most an eighth of a lease (2.5 s) after its admission
        timer.advance(Duration.ofSeconds(21));

        assertThat(governor.controls().waiting()).isZero();
        assertThat(governor.controls().outstandingPermits())
                .as("permits still holding something")
                .isZero();
        assertThat(maxInFlight.get()).isLessThanOrEqualTo(concurrency);
        for (Limit l : governor.controls().limits()) {
            for (Bucket b : l.buckets()) {
                assertThat(b.reserved()).as("reserved in %s", b).isZero();
            }
        }
        assertWindowsRespected(governor, records, clock);
        governor.close();
        return new ArrayList<>(records);
    }

    private static CallContext newContext(String tenant, String apiKeyId) {
        return CallContext.builder("openai").tenant(tenant).apiKeyId(apiKeyId).build();
    }

    private static void enter(AtomicInteger inFlight, AtomicInteger max) {
        int now = inFlight.incrementAndGet();
        max.accumulateAndGet(now, Math::max);
    }

    private static void collect(
            ConcurrentLinkedQueue<CompletableFuture<Admission>> pending,
            List<Permit> held,
            AtomicInteger inFlight,
            AtomicInteger max) {
        for (CompletableFuture<Admission> f : pending) {
            if (f.isDone() && pending.remove(f)) {
                Admission a = f.join();
                if (a.isAdmitted()) {
                    enter(inFlight, max);
                    held.add(a.permit());
                }
            }
        }
    }

    private static void finish(
            Permit p, SplittableRandom random, ConcurrentLinkedQueue<Record> records, AtomicInteger inFlight) {
        int how = random.nextInt(10);
        inFlight.decrementAndGet(); // before the governor releases: our count never exceeds its count
        if (how < 6) {
            Usage usage = Usage.builder()
                    .inputTokens(random.nextLong(p.demand().inputTokens() + 1))
                    .outputTokens(random.nextLong(p.demand().outputTokens() + 1))
                    .build();
            records.add(new Record(p, End.SETTLED, usage));
            p.settle(usage);
            p.releaseConcurrency();
        } else if (how < 9) {
            records.add(new Record(p, End.CANCELLED, null));
            p.cancel();
        } else {
            records.add(new Record(p, End.ABANDONED, null)); // the reaper will release it
        }
    }

    /** For each bucket, the usage admitted in any window stays within what its algorithm allows. */
    private static void assertWindowsRespected(Governor governor, Iterable<Record> records, FakeClock clock) {
        Map<Bucket, List<long[]>> events = new IdentityHashMap<>();
        for (Record r : records) {
            Permit p = r.permit;
            for (int i = 0; i < p.buckets.length; i++) {
                Bucket b = p.buckets[i];
                if (p.amounts[i] > 0 && b.limit().dimension() != Dimension.CONCURRENCY) {
                    long windowId = p.takenAt == null ? Long.MIN_VALUE : p.takenAt[i];
                    events.computeIfAbsent(b, x -> new ArrayList<>())
                            .add(new long[] {p.admittedNanos(), r.finalAmount(b, p.amounts[i]), windowId});
                }
            }
        }
        assertThat(events).isNotEmpty();
        for (Map.Entry<Bucket, List<long[]>> e : events.entrySet()) {
            Bucket b = e.getKey();
            List<long[]> list = e.getValue();
            Collections.sort(list, (x, y) -> Long.compare(x[0], y[0]));
            LimitSpec spec = b.limit().spec();
            if (spec.algorithm() == Algorithm.TOKEN_BUCKET) {
                double rate = (double) spec.capacity() / spec.window().toNanos();
                // An admission is stamped with the clock reading it was decided at, which on the
                // fast path may be up to one clock tick old while the bucket was already refilled
                // to a fresher reading by another call: the stamps can then show one tick's refill
                // more in an interval than a strict bucket allows (TickingClock.TICK_NANOS).
                double tickRefill = rate * TickingClock.TICK_NANOS;
                double prefix = 0;
                double minStart = Double.MAX_VALUE;
                for (long[] ev : list) {
                    minStart = Math.min(minStart, prefix - rate * ev[0]);
                    prefix += ev[1];
                    double worst = prefix - rate * ev[0] - minStart;
                    assertThat(worst).as("burst in %s", b).isLessThanOrEqualTo(spec.capacity() + tickRefill + 1e-6);
                }
            } else {
                Map<Long, Long> perWindow = new HashMap<>();
                long windowMillis = spec.window().toMillis();
                for (long[] ev : list) {
                    long stampedStart = spec.algorithm() == Algorithm.FIXED_WINDOW
                            ? Math.floorDiv(clock.epochMillisAt(ev[0]), windowMillis) * windowMillis
                            : dailyWindowStart(clock.epochMillisAt(ev[0]), spec);
                    // The governor stamps a permit with one reading of the clock's nanos and picks
                    // the window with a reading of its millis taken after it, while this test's
                    // thread moves the clock: a permit may be counted in a later window than its
                    // stamp's (by several when its worker was descheduled between the readings
                    // while the clock ran on), never in an earlier one; the bound above is a day.
                    // Counted in the window the governor chose, the capacity must hold in each.
                    long countedStart = ev[2] == Long.MIN_VALUE ? stampedStart : ev[2];
                    assertThat(countedStart)
                            .as("window a permit stamped in window %s was counted in, %s", stampedStart, b)
                            .isBetween(stampedStart, stampedStart + Math.max(windowMillis, 86_400_000L));
                    perWindow.merge(countedStart, ev[1], Long::sum);
                }
                for (Map.Entry<Long, Long> w : perWindow.entrySet()) {
                    assertThat(w.getValue())
                            .as("window %s of %s", w.getKey(), b)
                            .isLessThanOrEqualTo(spec.capacity());
                }
            }
        }
    }

    private static long dailyWindowStart(long epochMillis, LimitSpec spec) {
        java.time.ZonedDateTime now =
                java.time.Instant.ofEpochMilli(epochMillis).atZone(spec.zone());
        java.time.ZonedDateTime reset = now.toLocalDate().atTime(spec.resetAt()).atZone(spec.zone());
        return (now.isBefore(reset) ? reset.minusDays(1) : reset).toInstant().toEpochMilli();
    }

    @Test
    void refundsRestoreEveryBucketExactly() throws Exception {
        FakeClock clock = new FakeClock();
        ManualTimer timer = new ManualTimer(clock);
        Governor governor = hierarchy(clock, timer).build();
        Map<Bucket, Long> before = new IdentityHashMap<>();
        // create every bucket first, then remember its room
        for (String t : TENANTS) {
            for (String k : KEYS) {
                governor.tryAdmit(
                                CallContext.builder("openai")
                                        .tenant(t)
                                        .apiKeyId(k)
                                        .build(),
                                Demand.builder().inputTokens(1).build())
                        .permit()
                        .cancel();
            }
        }
        assertThat(governor.controls().outstandingPermits()).isZero(); // applies the cancels above
        for (Limit l : governor.controls().limits()) {
            for (Bucket b : l.buckets()) {
                before.put(b, b.room(clock.nanoTime(), clock.epochMillis()));
            }
        }
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            SplittableRandom random = new SplittableRandom(t * 31L + 7);
            new Thread(() -> {
                        List<Permit> held = new ArrayList<>();
                        for (int i = 0; i < OPS_PER_THREAD; i++) {
                            if (random.nextBoolean() || held.isEmpty()) {
                                Admission a = governor.tryAdmit(
                                        CallContext.builder("openai")
                                                .tenant(TENANTS[random.nextInt(TENANTS.length)])
                                                .apiKeyId(KEYS[random.nextInt(KEYS.length)])
                                                .build(),
                                        Demand.builder()
                                                .inputTokens(random.nextInt(300))
                                                .outputTokens(random.nextInt(300))
                                                .build());
                                if (a.isAdmitted()) {
                                    held.add(a.permit());
                                }
                            } else {
                                held.remove(random.nextInt(held.size())).cancel();
                            }
                        }
                        held.forEach(Permit::cancel);
                        done.countDown();
                    })
                    .start();
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        // settlements are applied lazily; the governor applies them before anything it reports
        assertThat(governor.controls().outstandingPermits()).isZero();
        for (Map.Entry<Bucket, Long> e : before.entrySet()) {
            assertThat(e.getKey().room(clock.nanoTime(), clock.epochMillis()))
                    .as("%s", e.getKey())
                    .isEqualTo(e.getValue());
        }
        assertThat(governor.controls().outstandingPermits()).isZero();
        governor.close();
    }
}
