package dev.sluice.benchmarks;

import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.Admission;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.Governor;
import dev.sluice.core.GovernorBuilder;
import dev.sluice.core.Permit;
import dev.sluice.core.Usage;
import dev.sluice.core.quota.LimitSpec;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of one admission on the fast path, Sluice side by side with Bucket4j (a local bucket)
 * and Resilience4j's {@code RateLimiter}, in one JMH run. Subclasses fix the thread count
 * ({@link Admission1Thread}, {@link Admission2Threads}) so both appear in the same table; all
 * threads of a trial share one governor, one bucket and one rate limiter, as the callers of one JVM
 * would.
 *
 * <p>Only the fast path is measured: every capacity is so large that nothing is ever refused or
 * queued, and each operation asks for one unit, like {@code tryConsume(1)} and
 * {@code acquirePermission()}. Sluice's operation is a whole reservation, because a permit must be
 * ended or the governor's lease list grows: admit, then settle and release the concurrency slot
 * (what the exchange engine does after a response), or admit then cancel (a call that never left).
 * Every Sluice path here is made of token buckets, so after each thread's first call Sluice admits
 * through its lock-free lane (see {@code Governor}); the lane's registrations under the lock,
 * every 256 admissions per thread, fall inside the timed part.
 *
 * <p>The 15-bucket hierarchy is five levels (organization, tenant, team, API key, model profile)
 * times three dimensions (requests, input tokens, output tokens), all token buckets, which is the
 * most a call's path crosses in a typical multi-tenant configuration.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public abstract class AdmissionBenchmark {

    /** Far beyond anything a benchmark can consume in a minute: the fast path, never a refusal. */
    static final long HUGE = 1_000_000_000_000L;

    static final ScopeLevel[] LEVELS = {
        ScopeLevel.ORGANIZATION, ScopeLevel.TENANT, ScopeLevel.TEAM, ScopeLevel.API_KEY, ScopeLevel.MODEL_PROFILE
    };

    static final Dimension[] DIMENSIONS = {Dimension.REQUESTS, Dimension.INPUT_TOKENS, Dimension.OUTPUT_TOKENS};

    /** One request, nothing else: what {@code tryConsume(1)} asks. Immutable, so built once. */
    static final Demand ONE_REQUEST = Demand.oneRequest();

    /** A typical chat call: 500 prompt tokens, 200 output tokens reserved. */
    static final Demand CHAT_CALL =
            Demand.builder().inputTokens(500).outputTokens(200).build();

    /** What the chat call used: its prompt as estimated, fewer output tokens than reserved (a refund). */
    static final Usage CHAT_USAGE = Usage.builder()
            .inputTokens(500)
            .outputTokens(150)
            .reportedByProvider(true)
            .build();

    Governor oneBucket;
    Governor fifteenBuckets;
    Bucket bucket4j;
    RateLimiter resilience4j;

    @Setup(Level.Trial)
    public void setUp() {
        oneBucket = Governor.builder()
                .limit(LimitSpec.perWindow("requests", Dimension.REQUESTS, HUGE, Duration.ofMinutes(1)))
                .build();
        GovernorBuilder hierarchy = Governor.builder();
        for (ScopeLevel level : LEVELS) {
            for (Dimension dimension : DIMENSIONS) {
                hierarchy.limit(LimitSpec.builder(level.configName() + "." + dimension.configName(), dimension, HUGE)
                        .window(Duration.ofMinutes(1))
                        .level(level)
                        .build());
            }
        }
        fifteenBuckets = hierarchy.build();
        // per hour: Bucket4j refills at most one token per nanosecond; the capacity is what matters
        bucket4j = Bucket.builder()
                .addLimit(limit -> limit.capacity(HUGE).refillGreedy(HUGE, Duration.ofHours(1)))
                .build();
        resilience4j = RateLimiter.of(
                "benchmark",
                RateLimiterConfig.custom()
                        .limitForPeriod(1_000_000_000)
                        .limitRefreshPeriod(Duration.ofSeconds(1))
                        .timeoutDuration(Duration.ZERO)
                        .build());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        // A permit left open would mean the figures include a growing lease list: say so loudly.
        for (Governor g : new Governor[] {oneBucket, fifteenBuckets}) {
            int open = g.controls().outstandingPermits();
            long refused = g.stats().rejected();
            g.close();
            if (open != 0 || refused != 0) {
                throw new IllegalStateException(open + " permits left open, " + refused + " refusals");
            }
        }
    }

    /** Each benchmark thread's caller: one context reused for every call, as the engine reuses one across attempts. */
    @State(Scope.Thread)
    public static class Caller {
        CallContext context;

        @Setup(Level.Trial)
        public void setUp() {
            context = newContext();
        }
    }

    /** A call from tenant {@code search}, team {@code ranking}, through one API key, to one model. */
    static CallContext newContext() {
        return CallContext.builder("openai")
                .model("gpt-4o-mini")
                .tenant("search")
                .team("ranking")
                .apiKeyId("k_3f9a1c")
                .build();
    }

    // ------------------------------------------------------------------ peers, one bucket

    /** Bucket4j local bucket (lock-free, its default), {@code tryConsume(1)}. */
    @Benchmark
    public boolean bucket4j_1bucket_tryConsume() {
        return bucket4j.tryConsume(1);
    }

    /** Resilience4j {@code AtomicRateLimiter}, {@code acquirePermission()} with no wait. */
    @Benchmark
    public boolean resilience4j_1bucket_acquirePermission() {
        return resilience4j.acquirePermission();
    }

    // ------------------------------------------------------------------ Sluice, one bucket

    /** Admit one request, then settle it and release its slot: a whole call's governance. */
    @Benchmark
    public Permit sluice_1bucket_admitSettle(Caller caller) {
        return admitSettle(oneBucket, caller.context, ONE_REQUEST, Usage.NONE);
    }

    /** Admit one request, then cancel it (it never left): everything comes back. */
    @Benchmark
    public Permit sluice_1bucket_admitCancel(Caller caller) {
        return admitCancel(oneBucket, caller.context, ONE_REQUEST);
    }

    /**
     * As {@code admitSettle}, with a new context per call, as the exchange engine makes one per
     * logical call: its route is found in the governor's cache of routes by caller.
     */
    @Benchmark
    public Permit sluice_1bucket_freshContext_admitSettle() {
        return admitSettle(oneBucket, newContext(), ONE_REQUEST, Usage.NONE);
    }

    // ------------------------------------------------------------------ Sluice, 15 buckets

    /** Admit a chat call on 15 buckets, settle it with its usage (a refund), release its slot. */
    @Benchmark
    public Permit sluice_15buckets_admitSettle(Caller caller) {
        return admitSettle(fifteenBuckets, caller.context, CHAT_CALL, CHAT_USAGE);
    }

    /** Admit a chat call on 15 buckets, then cancel it. */
    @Benchmark
    public Permit sluice_15buckets_admitCancel(Caller caller) {
        return admitCancel(fifteenBuckets, caller.context, CHAT_CALL);
    }

    /** As {@code admitSettle} on 15 buckets, with a new context per call (one look-up in the route cache). */
    @Benchmark
    public Permit sluice_15buckets_freshContext_admitSettle() {
        return admitSettle(fifteenBuckets, newContext(), CHAT_CALL, CHAT_USAGE);
    }

    static Permit admitSettle(Governor governor, CallContext context, Demand demand, Usage usage) {
        Permit permit = admitted(governor.tryAdmit(context, demand));
        // what the engine does when a response body ends: settle and release in one step
        permit.settleAndRelease(usage);
        return permit;
    }

    static Permit admitCancel(Governor governor, CallContext context, Demand demand) {
        Permit permit = admitted(governor.tryAdmit(context, demand));
        permit.cancel();
        return permit;
    }

    // ------------------------------------------------------------------ admission alone

    /** Operations per invocation of the batched rows: long enough that per-invocation set-up is noise. */
    static final int BATCH = 1_000;

    /**
     * One thread's batch of permits. Before each invocation (untimed) the previous batch is
     * cancelled and the governor applies the cancellations, so the timed part is the admissions
     * alone: what the issue calls the cost of one admission on the fast path.
     */
    @State(Scope.Thread)
    public static class Batch {
        final Permit[] permits = new Permit[BATCH];
        Governor governor;
        CallContext context;

        @Setup(Level.Trial)
        public void setUp() {
            context = newContext();
        }

        @Setup(Level.Invocation)
        public void settlePreviousBatch() {
            if (governor == null) {
                return;
            }
            for (int i = 0; i < BATCH; i++) {
                if (permits[i] != null) {
                    permits[i].cancel();
                    permits[i] = null;
                }
            }
            governor.controls().outstandingPermits(); // applies the cancellations now, outside the timed part
        }

        /** The last batch of an iteration too, so the trial ends with no permit open. */
        @TearDown(Level.Iteration)
        public void settleLastBatch() {
            settlePreviousBatch();
        }
    }

    /** Sluice {@code tryAdmit} alone on one bucket; settlement happens outside the timed part. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void sluice_1bucket_admitOnly(Batch batch) {
        batch.governor = oneBucket;
        for (int i = 0; i < BATCH; i++) {
            batch.permits[i] = admitted(oneBucket.tryAdmit(batch.context, ONE_REQUEST));
        }
    }

    /** Sluice {@code tryAdmit} alone on 15 buckets; settlement happens outside the timed part. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void sluice_15buckets_admitOnly(Batch batch) {
        batch.governor = fifteenBuckets;
        for (int i = 0; i < BATCH; i++) {
            batch.permits[i] = admitted(fifteenBuckets.tryAdmit(batch.context, CHAT_CALL));
        }
    }

    /** Bucket4j in the same batched harness as Sluice's admission-alone rows. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void bucket4j_1bucket_tryConsume_batched(org.openjdk.jmh.infra.Blackhole hole) {
        for (int i = 0; i < BATCH; i++) {
            hole.consume(bucket4j.tryConsume(1));
        }
    }

    /** Resilience4j in the same batched harness as Sluice's admission-alone rows. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void resilience4j_1bucket_acquirePermission_batched(org.openjdk.jmh.infra.Blackhole hole) {
        for (int i = 0; i < BATCH; i++) {
            hole.consume(resilience4j.acquirePermission());
        }
    }

    private static Permit admitted(Admission admission) {
        // permit() throws on a refusal: a refused call would not be the fast path we mean to measure
        return admission.permit();
    }
}
