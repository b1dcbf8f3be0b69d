package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.GovernorStats.ClassCounters;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.LaneCredit;
import dev.sluice.core.quota.LaneLender;
import dev.sluice.core.quota.ProviderScope;
import dev.sluice.core.telemetry.TenantCounters;

/**
 * The buckets a call is counted in (configured limits on its path, then the limits its provider
 * scope learned from headers), and what the governor keeps handy for it. Resolved once per call
 * context and reused across its attempts until a bucket on it is evicted. Guarded
 * by the governor's lock, apart from {@link #lanePath()}.
 */
final class Route {

    final Bucket[] configured;
    final ProviderScope scope;
    /** The call's tenant as a guaranteed tenant's index, or -1. */
    final int guarantee;

    final TenantCounters tenantCounters;
    final ClassCounters classCounters;
    /** What it was resolved for. */
    final RouteKey key;

    /**
     * When it was resolved or last renewed (the governor's clock): {@link Routes} keeps it for a
     * while from then. Written under the lock, read by callers without it.
     */
    volatile long resolvedNanos;

    /**
     * The {@code provider|keyId} whose learned organization the resolution read, or null (the call
     * named its organization, or no key): renewing the route reads it again, as resolving did.
     */
    final String organizationKeyId;

    /** The organization the resolution found learned for {@link #organizationKeyId}, or null. */
    final String learnedOrganization;

    /** Its tenant's admitted and refused calls when it was resolved or last renewed. Lock held. */
    long tenantCallsAtRenewal;

    /** Configured then learned buckets, rebuilt when the scope learns a new budget. */
    private Bucket[] all;

    private Bucket[] learnedSeen;
    private boolean windowed;
    private boolean tracked;
    private boolean readsWallClock;
    /**
     * The organization an answer to a call on this route named and {@link Routes#adoptOrganization}
     * found already adopted for the route's key, or null: the next answers naming it again skip the
     * look-up. Lock held.
     */
    String organizationConfirmed;

    /** The path as the lock-free lane may take it, or null when it may not (see {@link LanePath}). */
    private volatile LanePath lanePath;

    Route(
            Bucket[] configured,
            ProviderScope scope,
            int guarantee,
            TenantCounters tenantCounters,
            ClassCounters classCounters,
            RouteKey key,
            String organizationKeyId,
            String learnedOrganization,
            long resolvedNanos) {
        this.configured = configured;
        this.key = key;
        this.organizationKeyId = organizationKeyId;
        this.learnedOrganization = learnedOrganization;
        this.resolvedNanos = resolvedNanos;
        this.scope = scope;
        this.guarantee = guarantee;
        this.tenantCounters = tenantCounters;
        this.classCounters = classCounters;
        this.tenantCallsAtRenewal = tenantCalls();
    }

    /** Calls of its tenant admitted or refused so far: a change means the tenant is still calling. */
    long tenantCalls() {
        return tenantCounters.admitted() + tenantCounters.rejected();
    }

    /** Whether every bucket and the scope on the path are still counted (none was evicted). */
    boolean isLive() {
        if (scope.isEvicted()) {
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
            boolean c = false;
            for (Bucket b : merged) {
                w |= b.isWindowed();
                t |= b.tracksTakes();
                c |= b.isWindowed() || b.isShared();
            }
            all = merged;
            learnedSeen = learned;
            windowed = w;
            tracked = t;
            readsWallClock = c;
            lanePath = guarantee < 0 ? LanePath.of(merged, learned) : null;
        }
        return all;
    }

    /**
     * The path for the lock-free lane: null when a bucket on it does not lend (windows,
     * concurrency, a shared store, reserves), when the tenant holds a guarantee, or when the scope
     * learned a bucket the lock holder has not added to the path yet. Any thread.
     */
    LanePath lanePath() {
        LanePath p = lanePath;
        return p != null && p.learned == scope.learnedBuckets() ? p : null;
    }

    /**
     * A path whose buckets all lend to the lane, with what the lane needs of each at hand (their
     * lent room, dimension and charging rule), so it never reads the buckets themselves, whose
     * lines the lock holder writes. Immutable.
     */
    static final class LanePath {
        final Bucket[] buckets;
        final LaneCredit[] credits;
        /** The buckets as lenders, which the lock holder asks to lend. */
        final LaneLender[] lenders;

        final Dimension[] dimensions;
        final boolean[] mirrorsProvider;
        final Bucket[] learned;

        private LanePath(Bucket[] buckets, LaneCredit[] credits, LaneLender[] lenders, Bucket[] learned) {
            this.buckets = buckets;
            this.credits = credits;
            this.lenders = lenders;
            this.learned = learned;
            this.dimensions = new Dimension[buckets.length];
            this.mirrorsProvider = new boolean[buckets.length];
            for (int i = 0; i < buckets.length; i++) {
                dimensions[i] = buckets[i].limit().dimension();
                mirrorsProvider[i] = buckets[i].limit().mirrorsProvider();
            }
        }

        /** The lane's path over these buckets, or null when one of them does not lend. Lock held. */
        static LanePath of(Bucket[] buckets, Bucket[] learned) {
            LaneCredit[] credits = new LaneCredit[buckets.length];
            LaneLender[] lenders = new LaneLender[buckets.length];
            for (int i = 0; i < buckets.length; i++) {
                lenders[i] = buckets[i].laneLender();
                credits[i] = lenders[i] == null ? null : lenders[i].credit();
                if (credits[i] == null) {
                    return null;
                }
            }
            return new LanePath(buckets, credits, lenders, learned);
        }

        /** What the demand takes from bucket {@code i}. */
        long amount(int i, Demand demand) {
            return demand.chargeIn(dimensions[i], mirrorsProvider[i]);
        }
    }

    /** Whether a bucket on the path needs what {@link Bucket#take} returned back when settled. */
    boolean tracked() {
        buckets();
        return tracked;
    }

    /** Whether settling a call on the path reads the wall clock: a bucket counts in windows or in a shared store. */
    boolean readsWallClock() {
        buckets();
        return readsWallClock;
    }

    /** Whether a bucket on the path counts in windows aligned on wall-clock time. */
    boolean windowed() {
        buckets();
        return windowed;
    }
}
