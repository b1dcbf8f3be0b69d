package dev.sluice.core;

import dev.sluice.core.quota.Bucket;

/**
 * Consecutive lane permits of one stripe on one route: what they took of each bucket and how
 * many tokens they reserved, counted once for the run.
 */
final class LaneRun {
    private final Route route;
    private final Bucket[] buckets;
    private final long[] taken;
    private long calls;
    private long tokens;

    LaneRun(Permit first) {
        this.route = first.laneRoute;
        this.buckets = first.buckets;
        this.taken = new long[buckets.length];
    }

    boolean covers(Permit p) {
        return p.laneRoute == route && p.buckets == buckets;
    }

    void add(Permit p) {
        for (int i = 0; i < taken.length; i++) {
            taken[i] += p.amounts[i];
        }
        calls++;
        tokens += p.demand().totalTokens();
    }

    void register(GovernorStats stats, long freshNanos) {
        for (int i = 0; i < buckets.length; i++) {
            if (taken[i] != 0) {
                buckets[i].laneLender().registered(taken[i], freshNanos);
            }
        }
        stats.onAdmittedAtOnce(route.classCounters, route.tenantCounters, calls, tokens);
    }
}
