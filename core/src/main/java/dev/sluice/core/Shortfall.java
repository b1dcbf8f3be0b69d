package dev.sluice.core;

import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.FleetRoom;
import dev.sluice.core.quota.LimitSpec;
import java.util.Locale;

/**
 * Why a demand does not fit now: which bucket is short, by how much, and for how long; or that
 * the provider scope holds calls (a pause the provider asked for, or the slow start of a scope
 * Sluice knows nothing about). Found under the governor's lock ({@link #onPath}); immutable.
 */
final class Shortfall {

    /** The short bucket, or null when the provider scope holds the call. */
    final Bucket bucket;

    final long needed;
    final long room;
    /** How long until it fits: nanoseconds, {@link Bucket#ON_RELEASE} or {@link Bucket#NEVER}. */
    final long nanos;

    final boolean never;
    /** Only a cold scope's slow start holds the call: not a shortage Sluice knows of. */
    final boolean slowStart;
    /** Calls out in that slow start, none of whose answers told the limits yet. */
    final int slowStartInFlight;
    /** The bucket has room, but the rest is other active tenants' fair share. */
    final boolean fairShare;

    Shortfall(Bucket bucket, long needed, long room, long nanos) {
        this(bucket, needed, room, nanos, -1, false);
    }

    private Shortfall(Bucket bucket, long needed, long room, long nanos, int slowStartInFlight, boolean fairShare) {
        this.bucket = bucket;
        this.needed = needed;
        this.room = room;
        this.nanos = nanos;
        this.never = nanos == Bucket.NEVER;
        this.slowStart = slowStartInFlight >= 0;
        this.slowStartInFlight = slowStartInFlight;
        this.fairShare = fairShare;
    }

    /** The bucket's room beside the other active tenants' shares is short (see {@code TenantShares}). */
    static Shortfall fairShare(Bucket bucket, long needed, long free, long nanos) {
        return new Shortfall(bucket, needed, free, nanos, -1, true);
    }

    /** The provider scope holds calls for this long. */
    static Shortfall providerGate(long nanos) {
        return new Shortfall(null, 0, 0, nanos);
    }

    /** A cold scope's slow start holds calls for this long ({@link Bucket#ON_RELEASE}: until a call out ends). */
    static Shortfall slowStart(long nanos, int inFlight) {
        return new Shortfall(null, 0, 0, nanos, inFlight, false);
    }

    /**
     * What is short for a demand on a route, and until when: its provider scope holding calls, or
     * the bucket on its path that makes it wait longest; null when everything has room (the fair
     * shares between tenants are the governor's to look at then). Lock held.
     */
    static Shortfall onPath(Demand demand, Route route, long probeTimeoutNanos, long nowNanos, long nowMillis) {
        Shortfall worst = null;
        long gate = route.scope.nanosUntilOpen(nowNanos, probeTimeoutNanos);
        if (gate != 0) {
            worst = route.scope.inSlowStart() ? slowStart(gate, route.scope.slowStartInFlight()) : providerGate(gate);
        }
        for (Bucket b : route.buckets()) {
            long amount = Charges.amountFor(b, demand);
            if (amount == 0 || !b.limit().enforced()) {
                continue;
            }
            long room = b.roomFor(route.guarantee, nowNanos, nowMillis);
            long need = b.roomNeeded(route.guarantee, amount);
            if (room < need) {
                long wait = b.nanosUntilRoomFor(route.guarantee, need, nowNanos, nowMillis);
                if (worst == null || wait > worst.nanos) {
                    worst = new Shortfall(b, need, room, wait);
                } else if (worst.slowStart) {
                    worst = providerGate(worst.nanos); // a bucket is short too: a real shortage
                }
            }
        }
        return worst;
    }

    /**
     * Whether Sluice knows the provider would refuse this call now: the provider asked the scope to
     * wait, or a bucket mirroring one of its limits (announced, learned or declared), or its ramp,
     * has no room.
     * A call that waited its fill is then answered locally in the provider's shape, not sent to
     * spend the provider's count (OpenAI counts refused requests too); {@code pass_through} lets
     * a call go only where Sluice does not know, such as a limit of the service's own.
     */
    static boolean providerWouldRefuse(
            Demand demand, Route route, long probeTimeoutNanos, long nowNanos, long nowMillis) {
        if (route.scope.nanosUntilOpen(nowNanos, probeTimeoutNanos) != 0 && !route.scope.slowStartAdmitsAtDeadline()) {
            return true;
        }
        for (Bucket b : route.buckets()) {
            long amount = Charges.amountFor(b, demand);
            if (amount != 0
                    && b.limit().enforced()
                    && (b.limit().mirrorsProvider() || b.limit().spec().source() == LimitSpec.Source.RAMP)
                    && b.roomFor(route.guarantee, nowNanos, nowMillis) < b.roomNeeded(route.guarantee, amount)) {
                return true;
            }
        }
        return false;
    }

    /** A budget is short, but what calls in flight reserved would cover the call: it waits for them to settle. */
    boolean budgetAwaitsSettlements() {
        return bucket != null && Budgets.isBudget(bucket) && room + Math.max(0, bucket.reserved()) >= needed;
    }

    /** A shared budget is short locally: the store, asked by the queued call, says whether it is spent. */
    boolean budgetAwaitsStore(long nowMillis) {
        FleetRoom fleet = bucket == null ? null : bucket.fleetRoom();
        return fleet != null && Budgets.isBudget(bucket) && fleet.grants(nowMillis);
    }

    /** The wait in whole milliseconds, rounded up; 0 when it is not a time. */
    long retryAfterMillis() {
        return !never && nanos < Bucket.ON_RELEASE ? (nanos + 999_999) / 1_000_000 : 0;
    }

    /** What a person reads in the rejection: e.g. "needs 4200, 1900 free, refills in 2.4 s". */
    String describe() {
        if (slowStart) {
            return slowStartInFlight + (slowStartInFlight == 1 ? " call" : " calls")
                    + " out to a new provider scope, no answer yet told its limits";
        }
        if (bucket == null) {
            return "provider asked to wait " + seconds(nanos);
        }
        String s = "needs " + needed + ", " + Math.max(0, room)
                + (fairShare ? " free beside other tenants' shares" : " free");
        if (never) {
            return s + ", more than the capacity of " + bucket.capacity();
        }
        if (nanos == Bucket.ON_RELEASE) {
            return s + ", until a call in flight ends";
        }
        return s + ", refills in " + seconds(nanos);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }
}
