package dev.sluice.core;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.ProviderScope;

/**
 * The buckets a call is counted in (configured limits on its path) and its provider scope (whose
 * learned buckets and pause apply too). Resolved once per call context and reused across its
 * attempts until the limits change or a bucket is evicted.
 */
final class Route {

    final Bucket[] configured;
    final ProviderScope scope;
    final long generation;
    /** The call's tenant as a guaranteed tenant's index, or -1. */
    final int guarantee;

    Route(Bucket[] configured, ProviderScope scope, long generation, int guarantee) {
        this.configured = configured;
        this.scope = scope;
        this.generation = generation;
        this.guarantee = guarantee;
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
}
