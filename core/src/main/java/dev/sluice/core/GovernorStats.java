package dev.sluice.core;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what the governor decided, kept apart from the decisions themselves. Cheap to
 * update from the admission path (striped adders), read by JMX and tests.
 */
public final class GovernorStats {

    private final LongAdder admitted = new LongAdder();
    private final LongAdder settled = new LongAdder();
    private final LongAdder[] rejected = newAdders(GatewayDecision.values().length);
    private final LongAdder[] observedWouldDelay = newAdders(GatewayDecision.values().length);
    private final LongAdder leaseExpired = new LongAdder();
    private final LongAdder providerPauses = new LongAdder();
    private final Map<String, ClassCounters> byClass = new ConcurrentHashMap<>();

    private static LongAdder[] newAdders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    void onAdmitted(String trafficClass, long waitedNanos) {
        admitted.increment();
        if (waitedNanos > 0) {
            classCounters(trafficClass).waited(waitedNanos);
        }
    }

    void onRejected(GatewayDecision decision, String trafficClass) {
        rejected[decision.ordinal()].increment();
        if (trafficClass != null) {
            classCounters(trafficClass).rejected.increment();
        }
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

    void onSettled(Permit p, Usage actual) {
        settled.increment();
    }

    void onLeaseExpired() {
        leaseExpired.increment();
    }

    void onProviderPause() {
        providerPauses.increment();
    }

    private ClassCounters classCounters(String trafficClass) {
        return byClass.computeIfAbsent(trafficClass == null ? CallContext.DEFAULT_CLASS : trafficClass,
                k -> new ClassCounters());
    }

    public long admitted() {
        return admitted.sum();
    }

    public long settled() {
        return settled.sum();
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

        void waited(long nanos) {
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

        public long totalWaitNanos() {
            return waitedNanos.sum();
        }

        public long maxWaitNanos() {
            return maxWaitedNanos.get();
        }
    }
}
