package dev.sluice.core.store;

import dev.sluice.core.LazyLogger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the shared buckets admit from the backend or, because it failed or was too slow, from
 * local buckets of capacity / N; N is configured, or the instances alive at the last heartbeat.
 *
 * <p>The switch is one epoch change: every shared bucket compares its epoch with {@link #epoch()}
 * when next used and follows (lazily), building its local share of capacity / N on the way in and
 * giving it up on the way out. Switching is logged once each way and counted for JMX.
 *
 * <p>Written under the governor's lock by the store's thread; volatile for status readers.
 */
final class Fallback {

    private static final LazyLogger LOG = LazyLogger.of(QuotaStore.class);

    private final FleetBackend backend;
    private final int configuredInstances;

    private volatile int epoch = 1;
    private volatile boolean active;
    private volatile int liveInstances;
    private final AtomicLong fallbacks = new AtomicLong();
    private final AtomicLong recoveries = new AtomicLong();
    private long sinceNanos;

    /** @param instances N of capacity / N; 0 to take the instances alive at the last heartbeat */
    Fallback(FleetBackend backend, int instances) {
        this.backend = backend;
        this.configuredInstances = instances;
    }

    /** Changes each time the store falls back or comes back. */
    int epoch() {
        return epoch;
    }

    /** The epoch a bucket placed now starts in: a bucket born during a fallback starts in it. */
    int epochOfNewBucket() {
        return active ? epoch - 1 : epoch;
    }

    /** Whether shared buckets admit from their local shares now. */
    boolean active() {
        return active;
    }

    /** N of the fallback share capacity / N: configured, else the instances alive at the last heartbeat. */
    int instances() {
        return configuredInstances > 0 ? configuredInstances : Math.max(1, liveInstances);
    }

    /** The backend answered: this many instances are alive. */
    void heard(int live) {
        liveInstances = live;
    }

    /** Times the store fell back. */
    long fallbacks() {
        return fallbacks.get();
    }

    /** Times it came back. */
    long recoveries() {
        return recoveries.get();
    }

    /**
     * The backend failed with {@code error}: every shared bucket admits from its local share from
     * now on. False when it already did. Lock held.
     */
    boolean enter(String error, long nowNanos) {
        if (active) {
            return false;
        }
        active = true;
        epoch = next(epoch);
        fallbacks.incrementAndGet();
        sinceNanos = nowNanos;
        LOG.get()
                .warn(
                        "[sluice] store {} unreachable ({}): shared limits are enforced in this JVM at capacity/{}{} until it"
                                + " answers again",
                        backend.describe(),
                        error,
                        instances(),
                        configuredInstances > 0
                                ? ""
                                : liveInstances > 0
                                        ? " (instances seen alive)"
                                        : " (fleet size unknown: set store.instances)");
        return true;
    }

    /**
     * The backend answered a probe: shared buckets go back to it; the {@code tracked} ones follow at
     * once, so what they must tell the store (their room left, holdings) goes in the next pass.
     * False when the store was not in a fallback. Lock held.
     */
    boolean recover(Collection<SharedBucket> tracked, long nowNanos, long nowMillis) {
        if (!active) {
            return false;
        }
        active = false;
        epoch = next(epoch);
        recoveries.incrementAndGet();
        for (SharedBucket b : new ArrayList<>(tracked)) {
            b.follow(nowNanos, nowMillis);
        }
        LOG.get()
                .warn(
                        "[sluice] store {} answers again after {} ms: shared limits are back in the store ({} instances alive)",
                        backend.describe(),
                        (nowNanos - sinceNanos) / 1_000_000,
                        liveInstances);
        return true;
    }

    /** Skips epochs whose low 16 bits are 0: a bucket's tag keeps only those bits. */
    private static int next(int e) {
        int next = e + 1;
        return (next & 0xFFFF) == 0 ? next + 1 : next;
    }
}
