package dev.sluice.core.jmx;

import dev.sluice.core.BucketView;
import dev.sluice.core.Governor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The governor's state as the MXBeans show it, read under its lock in a handful of calls and kept
 * for a moment: a console or exporter reading dozens of attributes then costs the admission path
 * one short lock hold per refresh, not one per attribute. A change made through JMX drops it, so
 * the next read shows the change.
 */
final class LiveView {

    private final Governor governor;
    private final long maxAgeNanos;
    private volatile Snapshot snapshot;

    LiveView(Governor governor, long maxAgeNanos) {
        this.governor = governor;
        this.maxAgeNanos = maxAgeNanos;
    }

    Snapshot now() {
        Snapshot s = snapshot;
        long nowNanos = governor.clock().nanoTime();
        if (s == null || nowNanos - s.takenNanos > maxAgeNanos || maxAgeNanos == 0) {
            s = new Snapshot(governor, nowNanos);
            snapshot = s;
        }
        return s;
    }

    void invalidate() {
        snapshot = null;
    }

    /** One consistent-enough reading of buckets, calls in flight and queues. Immutable. */
    static final class Snapshot {
        final long takenNanos;
        final long epochMillis;
        final Map<String, List<BucketView>> bucketsByLimit;
        final Map<String, Integer> inFlightByLimit;
        final Map<String, Integer> waitingByTenant;
        final Map<String, Integer> queueDepthByClass;
        final int inFlight;

        Snapshot(Governor governor, long takenNanos) {
            this.takenNanos = takenNanos;
            this.epochMillis = governor.clock().epochMillis();
            Map<String, List<BucketView>> byLimit = new HashMap<>();
            for (BucketView v : governor.controls().bucketViews()) {
                byLimit.computeIfAbsent(v.limitId(), k -> new ArrayList<>()).add(v);
            }
            this.bucketsByLimit = byLimit;
            this.inFlightByLimit = governor.controls().inFlightByLimit();
            this.waitingByTenant = governor.controls().waitingByTenant();
            Map<String, Integer> depths = new HashMap<>();
            for (String c : governor.controls().trafficClasses().keySet()) {
                depths.put(c, governor.controls().queueDepth(c));
            }
            this.queueDepthByClass = depths;
            this.inFlight = governor.controls().outstandingPermits();
        }

        List<BucketView> buckets(String limitId) {
            List<BucketView> b = bucketsByLimit.get(limitId);
            return b == null ? Collections.emptyList() : b;
        }

        int waiting() {
            int n = 0;
            for (int d : queueDepthByClass.values()) {
                n += d;
            }
            return n;
        }
    }
}
