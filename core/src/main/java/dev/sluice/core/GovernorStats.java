package dev.sluice.core;

import com.github.benmanes.caffeine.cache.Cache;
import dev.sluice.core.telemetry.Decision;
import dev.sluice.core.telemetry.DecisionLog;
import dev.sluice.core.telemetry.TenantCounters;
import dev.sluice.core.telemetry.WaitHistogram;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Counters of what the governor decided, and the recent decisions worth explaining, kept apart
 * from the deciding. Cheap to update from the admission path (striped adders), read by JMX and
 * tests.
 */
public final class GovernorStats {

    /**
     * Written under the governor's lock only, as plain fields so the admission path pays no
     * fence; status views read them racily (a 64-bit JVM never tears a long).
     */
    private long admitted;

    private long settled;
    private final LongAdder[] rejected = newAdders(GatewayDecision.values().length);
    private final LongAdder[] observedWouldDelay = newAdders(GatewayDecision.values().length);
    private final LongAdder leaseExpired = new LongAdder();
    private final LongAdder providerPauses = new LongAdder();
    private final LongAdder coldStarts = new LongAdder();
    private final Map<String, ClassCounters> byClass = new ConcurrentHashMap<>();
    /** Bounded: tenants may be as many as API keys; the least recently seen go first. */
    private final Cache<String, TenantCounters> byTenant =
            Caches.builder().maximumSize(10_000).build();

    private final DecisionLog decisions = new DecisionLog(1_024);

    // Anonymous classes, not lambdas: the first call creates the first counters, and the JVM spins
    // a class for each lambda it meets on the application's start-up (docs/startup-figures.md).
    private static final Function<String, TenantCounters> NEW_TENANT = new Function<>() {
        @Override
        public TenantCounters apply(String tenant) {
            return new TenantCounters();
        }
    };
    private static final Function<String, ClassCounters> NEW_CLASS = new Function<>() {
        @Override
        public ClassCounters apply(String trafficClass) {
            return new ClassCounters();
        }
    };

    private static LongAdder[] newAdders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    /** Under the governor's lock, with the counters its route keeps handy. */
    @SuppressWarnings("NonAtomicVolatileUpdate") // single writer: the lock holder
    void onAdmitted(ClassCounters c, TenantCounters t, long tokens, long borrowedTokens, long waitedNanos) {
        admitted++;
        if (waitedNanos > 0) {
            c.waited(waitedNanos);
        } else {
            c.admittedAtOnce++;
        }
        t.onAdmitted(tokens, borrowedTokens, waitedNanos);
    }

    /** Under the governor's lock: a run of lane admissions on one route, registered together. */
    void onAdmittedAtOnce(ClassCounters c, TenantCounters t, long calls, long tokens) {
        admitted += calls;
        c.admittedAtOnce += calls;
        t.onAdmittedAtOnce(calls, tokens);
    }

    /** Under the governor's lock: a call that waited in its queue was admitted (worth explaining). */
    void onAdmittedAfterWaiting(CallContext call, long waitedNanos, long nowMillis) {
        decisions.record(new Decision(
                nowMillis,
                "admitted",
                call.provider(),
                call.model(),
                call.tenant(),
                call.trafficClass(),
                waitedNanos / 1_000_000L,
                "after waiting in the queue"));
    }

    /** A call was rejected: counted, and explained among the recent decisions. */
    void onRejected(Rejection r, long nowMillis) {
        rejected[r.decision().ordinal()].increment();
        ClassCounters c = classCounters(r.trafficClass());
        c.rejected.increment();
        if (r.decision() == GatewayDecision.QUEUE_DEADLINE_EXCEEDED) {
            c.deadlineExpirations.increment();
        }
        tenant(r.tenant()).onRejected();
        decisions.record(new Decision(
                nowMillis,
                r.decision().wireName(),
                r.provider(),
                r.model(),
                r.tenant(),
                r.trafficClass(),
                r.waitedMillis(),
                r.toString()));
    }

    void onObservedWouldDelay(GatewayDecision decision) {
        observedWouldDelay[decision.ordinal()].increment();
    }

    void onQueued(String trafficClass) {
        classCounters(trafficClass).queued.increment();
    }

    void onPassedThrough(String trafficClass) {
        classCounters(trafficClass).passedThrough.increment();
    }

    void onAbandoned(String trafficClass) {
        classCounters(trafficClass).abandoned.increment();
    }

    /** Under the governor's lock. */
    void onSettled(Permit p, Usage actual) {
        settled++;
        if (actual != null && p.tenantCounters != null) {
            p.tenantCounters.onUsed(actual.inputTokens(), actual.outputTokens());
        }
    }

    /** Counters of one tenant (created on first use). */
    public TenantCounters tenant(String tenant) {
        return byTenant.get(tenant == null ? "" : tenant, NEW_TENANT);
    }

    /** Every tenant seen recently, with its counters. */
    public Map<String, TenantCounters> tenants() {
        return java.util.Collections.unmodifiableMap(byTenant.asMap());
    }

    /** Traffic classes seen, with their counters. */
    public Map<String, ClassCounters> trafficClasses() {
        return java.util.Collections.unmodifiableMap(byClass);
    }

    /** The recent decisions worth explaining. */
    public DecisionLog decisions() {
        return decisions;
    }

    void onLeaseExpired() {
        leaseExpired.increment();
    }

    void onProviderPause() {
        providerPauses.increment();
    }

    void onColdStart() {
        coldStarts.increment();
    }

    private ClassCounters classCounters(String trafficClass) {
        return byClass.computeIfAbsent(trafficClass == null ? CallContext.DEFAULT_CLASS : trafficClass, NEW_CLASS);
    }

    public long admitted() {
        return admitted;
    }

    public long settled() {
        return settled;
    }

    public long rejected(GatewayDecision decision) {
        return rejected[decision.ordinal()].sum();
    }

    /** Rejections of every kind. */
    public long rejected() {
        long total = 0;
        for (LongAdder a : rejected) {
            total += a.sum();
        }
        return total;
    }

    /** In observe mode: calls that enforce mode would have delayed or rejected, by decision. */
    public long observedWouldDelay(GatewayDecision decision) {
        return observedWouldDelay[decision.ordinal()].sum();
    }

    public long leaseExpired() {
        return leaseExpired.sum();
    }

    public long providerPauses() {
        return providerPauses.sum();
    }

    /**
     * Provider scopes that started cold: seen for the first time with no limit of the provider's
     * mirrored, so their first call went alone and the others waited for its headers.
     */
    public long coldStarts() {
        return coldStarts.sum();
    }

    /** Counters of one traffic class (created on first use). */
    public ClassCounters trafficClass(String name) {
        return classCounters(name);
    }

    /** Counters of one traffic class. */
    public static final class ClassCounters {
        final LongAdder queued = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder passedThrough = new LongAdder();
        final LongAdder abandoned = new LongAdder();
        final LongAdder waitedCount = new LongAdder();
        final LongAdder waitedNanos = new LongAdder();
        final AtomicLong maxWaitedNanos = new AtomicLong();
        final LongAdder deadlineExpirations = new LongAdder();
        final WaitHistogram waits = new WaitHistogram();
        /** Admitted without waiting (the fast path); under the governor's lock. */
        long admittedAtOnce;

        void waited(long nanos) {
            waits.record(nanos);
            waitedCount.increment();
            waitedNanos.add(nanos);
            maxWaitedNanos.accumulateAndGet(nanos, Math::max);
        }

        public long queued() {
            return queued.sum();
        }

        public long rejected() {
            return rejected.sum();
        }

        public long passedThrough() {
            return passedThrough.sum();
        }

        public long abandoned() {
            return abandoned.sum();
        }

        public long admittedAfterWaiting() {
            return waitedCount.sum();
        }

        public long maxWaitNanos() {
            return maxWaitedNanos.get();
        }

        /** Calls whose wait ran out in the queue. */
        public long deadlineExpirations() {
            return deadlineExpirations.sum();
        }

        /** Calls admitted at once, without waiting. */
        public long admittedAtOnce() {
            return admittedAtOnce;
        }

        /** The admission wait at quantile q over every admitted call of the class, in nanoseconds. */
        public long waitPercentileNanos(double q) {
            return waits.percentileNanos(q, admittedAtOnce);
        }
    }
}
