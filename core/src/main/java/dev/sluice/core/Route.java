package dev.sluice.core;

import dev.sluice.core.GovernorStats.ClassCounters;
import dev.sluice.core.observe.TenantCounters;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.ProviderScope;

/**
 * The buckets a call is counted in (configured limits on its path, then the limits its provider
 * scope learned from headers), and what the governor keeps handy for it. Resolved once per call
 * context and reused across its attempts until the limits change or a bucket is evicted. Guarded
 * by the governor's lock.
 */
final class Route {

    final Bucket[] configured;
    final ProviderScope scope;
    final long generation;
    /** The call's tenant as a guaranteed tenant's index, or -1. */
    final int guarantee;
    final TenantCounters tenantCounters;
    final ClassCounters classCounters;

    /** Configured then learned buckets, rebuilt when the scope learns a new budget. */
    private Bucket[] all;
    private Bucket[] learnedSeen;
    private boolean windowed;
    private boolean tracked;

    Route(Bucket[] configured, ProviderScope scope, long generation, int guarantee, TenantCounters tenantCounters,
            ClassCounters classCounters) {
        this.configured = configured;
        this.scope = scope;
        this.generation = generation;
        this.guarantee = guarantee;
        this.tenantCounters = tenantCounters;
        this.classCounters = classCounters;
    }

    boolean isCurrent(long currentGeneration) {
        if (generation != currentGeneration || scope.isEvicted()) {
            return false;
        }
        for (Bucket b : configured) {
            if (b.isEvicted()) {
                return false;
            }
        }
        return true;
    }

    /** Every bucket on the path, configured first. */
    Bucket[] buckets() {
        Bucket[] learned = scope.learnedBuckets();
        if (learned != learnedSeen || all == null) {
            Bucket[] merged = new Bucket[configured.length + learned.length];
            System.arraycopy(configured, 0, merged, 0, configured.length);
            System.arraycopy(learned, 0, merged, configured.length, learned.length);
            boolean w = false;
            boolean t = false;
            for (Bucket b : merged) {
                w |= b.isWindowed();
                t |= b.tracksTakes();
            }
            all = merged;
            learnedSeen = learned;
            windowed = w;
            tracked = t;
        }
        return all;
    }

    /** Whether a bucket on the path needs what {@link Bucket#take} returned back when settled. */
    boolean tracked() {
        buckets();
        return tracked;
    }

    /** Whether a bucket on the path counts in windows aligned on wall-clock time. */
    boolean windowed() {
        buckets();
        return windowed;
    }
}
