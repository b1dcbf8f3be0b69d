package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.ProviderScope;
import dev.sluice.core.schedule.ClassQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the status views read from the governor's state: room per dimension, every bucket, calls
 * in flight per limit, calls waiting per tenant. Pure functions of that state, called by the
 * governor under its lock with every settlement applied, so what they read is exact.
 */
final class StatusViews {

    private StatusViews() {}

    /** The least room over every bucket of a dimension, configured and learned. */
    static long available(
            Dimension dimension, Limit[] limits, Collection<ProviderScope> scopes, long nowNanos, long nowMillis) {
        long least = Long.MAX_VALUE;
        for (Limit l : limits) {
            if (l.dimension() == dimension) {
                for (Bucket b : l.buckets()) {
                    least = Math.min(least, b.room(nowNanos, nowMillis));
                }
            }
        }
        for (ProviderScope s : scopes) {
            for (Bucket b : s.learnedBuckets()) {
                if (b.limit().dimension() == dimension) {
                    least = Math.min(least, b.room(nowNanos, nowMillis));
                }
            }
        }
        return least;
    }

    /** A view of every bucket, configured then learned. */
    static List<BucketView> bucketViews(
            Limit[] limits, Collection<ProviderScope> scopes, long nowNanos, long nowMillis) {
        List<BucketView> views = new ArrayList<>();
        for (Limit l : limits) {
            for (Bucket b : l.buckets()) {
                views.add(BucketView.of(b, nowNanos, nowMillis));
            }
        }
        for (ProviderScope s : scopes) {
            for (Bucket b : s.learnedBuckets()) {
                views.add(BucketView.of(b, nowNanos, nowMillis));
            }
        }
        return views;
    }

    /** Permits still holding something, per limit id, walking the lease list from its oldest. */
    static Map<String, Integer> inFlightByLimit(Permit oldest) {
        Map<String, Integer> counts = new HashMap<>();
        for (Permit p = oldest; p != null; p = p.leaseNext) {
            for (int i = 0; i < p.buckets.length; i++) {
                if (p.amounts[i] > 0) {
                    counts.merge(p.buckets[i].limit().id(), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    /** Calls waiting per tenant, over every class. */
    static Map<String, Integer> waitingByTenant(List<ClassQueue<Waiter>> queues) {
        Map<String, Integer> byTenant = new LinkedHashMap<>();
        for (ClassQueue<Waiter> q : queues) {
            q.sizesByTenant().forEach((t, n) -> byTenant.merge(t, n, Integer::sum));
        }
        return byTenant;
    }
}
