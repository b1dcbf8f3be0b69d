package dev.sluice.core.quota;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.RemovalListener;
import dev.sluice.config.Algorithm;
import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import dev.sluice.core.Caches;
import dev.sluice.core.CallContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A limit at run time: its spec, its live-tunable capacity and enforced flag, and its buckets, one
 * per value of its scope level, created lazily and evicted when idle. Internal to the governor;
 * mutated only under the governor's lock.
 */
public final class Limit {

    /** Most per-value buckets one limit keeps (tenants, keys, models); idle ones go first. */
    static final long MAX_BUCKETS_PER_LIMIT = 100_000;

    private final LimitSpec spec;
    private final String displayScope;
    private volatile long capacity;
    private volatile long burst;
    /** Whether the provider announced this learned limit's capacity, rather than Sluice inferring it. */
    private volatile boolean capacityAnnounced;

    private volatile boolean enforced;
    private final long windowNanos;
    private final Bucket single;
    private final Cache<String, Bucket> perValue;
    private final WindowScheduleFactory schedules;
    private final Guarantees guarantees;
    private final BucketPlacement placement;
    /** Answers window questions for buckets that do not keep a schedule of their own (shared ones). */
    private WindowSchedule windows;

    private final java.util.concurrent.atomic.LongAdder[] rejections =
            new java.util.concurrent.atomic.LongAdder[dev.sluice.core.GatewayDecision.values().length];

    private Limit(
            LimitSpec spec,
            String displayScope,
            LongSupplier nanoTicker,
            long nowNanos,
            long nowMillis,
            Duration leaseTimeout,
            Guarantees guarantees,
            BucketPlacement placement) {
        this.spec = spec;
        this.placement = placement;
        // only buckets shared between tenants hold reserves for guaranteed tenants
        this.guarantees = spec.tenant() == null && spec.level() != ScopeLevel.TENANT ? guarantees : Guarantees.none();
        this.displayScope = displayScope;
        this.capacity = spec.capacity();
        this.burst = spec.burst();
        this.enforced = spec.enforced();
        for (int i = 0; i < rejections.length; i++) {
            rejections[i] = new java.util.concurrent.atomic.LongAdder();
        }
        this.windowNanos = spec.window() == null ? 0 : spec.window().toNanos();
        this.schedules = new WindowScheduleFactory(spec);
        if (spec.level() == ScopeLevel.ORGANIZATION || spec.tenant() != null) {
            this.single = newBucket("", nowNanos, nowMillis);
            this.perValue = null;
        } else {
            this.single = null;
            // Kept well past the point where an idle bucket is full again and every reservation on
            // it was settled or reaped, so evicting it is indistinguishable from keeping it.
            Duration retention =
                    Duration.ofNanos(2 * windowNanos).plus(leaseTimeout).plusMinutes(1);
            this.perValue = Caches.builder()
                    .ticker(Caches.ticker(nanoTicker))
                    .maximumSize(MAX_BUCKETS_PER_LIMIT)
                    .expireAfterAccess(retention)
                    .removalListener(new RemovalListener<String, Bucket>() {
                        @Override
                        public void onRemoval(String key, Bucket bucket, RemovalCause cause) {
                            if (bucket != null) {
                                bucket.markEvicted();
                            }
                        }
                    })
                    .build();
        }
    }

    /** A configured limit. */
    public static Limit of(
            LimitSpec spec,
            LongSupplier nanoTicker,
            long nowNanos,
            long nowMillis,
            Duration leaseTimeout,
            Guarantees guarantees) {
        return of(spec, nanoTicker, nowNanos, nowMillis, leaseTimeout, guarantees, BucketPlacement.LOCAL);
    }

    /** A configured limit whose buckets {@code placement} may put in a shared store. */
    public static Limit of(
            LimitSpec spec,
            LongSupplier nanoTicker,
            long nowNanos,
            long nowMillis,
            Duration leaseTimeout,
            Guarantees guarantees,
            BucketPlacement placement) {
        return new Limit(spec, null, nanoTicker, nowNanos, nowMillis, leaseTimeout, guarantees, placement);
    }

    /** A configured limit, with no guaranteed tenants. */
    public static Limit of(
            LimitSpec spec, LongSupplier nanoTicker, long nowNanos, long nowMillis, Duration leaseTimeout) {
        return of(spec, nanoTicker, nowNanos, nowMillis, leaseTimeout, Guarantees.none());
    }

    /** A limit whose single bucket stands for a fixed scope, e.g. a provider scope learned from headers. */
    public static Limit forScope(
            LimitSpec spec, String displayScope, long nowNanos, long nowMillis, Guarantees guarantees) {
        return forScope(spec, displayScope, nowNanos, nowMillis, guarantees, BucketPlacement.LOCAL);
    }

    /** A fixed-scope limit whose bucket {@code placement} may put in a shared store. */
    public static Limit forScope(
            LimitSpec spec,
            String displayScope,
            long nowNanos,
            long nowMillis,
            Guarantees guarantees,
            BucketPlacement placement) {
        if (spec.level() != ScopeLevel.ORGANIZATION) {
            throw new IllegalArgumentException("a fixed-scope limit has a single bucket");
        }
        return new Limit(
                spec, displayScope, SYSTEM_NANO_TIME, nowNanos, nowMillis, Duration.ZERO, guarantees, placement);
    }

    /** The guarantees this limit's buckets hold reserves for (none for per-tenant limits). */
    Guarantees guaranteesForBuckets() {
        return guarantees;
    }

    private Bucket newBucket(String scopeValue, long nowNanos, long nowMillis) {
        Bucket local = newLocalBucket(scopeValue, nowNanos, nowMillis);
        return placement == null ? local : placement.place(this, scopeValue, local, nowNanos, nowMillis);
    }

    private Bucket newLocalBucket(String scopeValue, long nowNanos, long nowMillis) {
        if (spec.dimension() == Dimension.CONCURRENCY) {
            return new ConcurrencyBucket(this, scopeValue);
        }
        if (spec.algorithm() == Algorithm.TOKEN_BUCKET) {
            return new TokenBucket(this, scopeValue, nowNanos);
        }
        return new WindowBucket(this, scopeValue, schedules.create(), nowMillis);
    }

    /** Start (epoch ms) of this limit's window containing {@code nowMillis}; for windowed limits. Lock held. */
    public long windowStartAt(long nowMillis) {
        if (windows == null) {
            windows = schedules.create();
        }
        return windows.windowStart(nowMillis);
    }

    /** Start (epoch ms) of the window after the one containing {@code nowMillis}; for windowed limits. Lock held. */
    public long nextWindowStartAt(long nowMillis) {
        if (windows == null) {
            windows = schedules.create();
        }
        return windows.nextWindowStart(nowMillis);
    }

    /**
     * Whether a window mirroring a provider is in its closing stretch, when a call admitted now
     * would reach the provider in the next window (see {@link WindowBucket}); for buckets that do
     * not keep a schedule of their own (shared ones). Lock held.
     */
    public boolean windowClosingAt(long nowMillis) {
        if (windows == null) {
            windows = schedules.create();
        }
        return WindowBucket.closing(this, windows, nowMillis);
    }

    /**
     * The level a token bucket of this limit refills to: its burst, less for a provider's mirror
     * the transit allowance (see {@link TokenBucket}), never below half the burst. A bucket in a
     * fleet's shared store refills to the same, so a fleet keeps the margin one JVM keeps.
     */
    public double refillCeiling() {
        long full = burst();
        if (!mirrorsProvider()) {
            return full;
        }
        double ratePerNano = (double) capacity() / windowNanos;
        return Math.max(full / 2.0, full - ratePerNano * TokenBucket.TRANSIT_ALLOWANCE_NANOS);
    }

    /** Window length in milliseconds (0 for concurrency). */
    public long windowMillis() {
        return windowNanos / 1_000_000L;
    }

    public LimitSpec spec() {
        return spec;
    }

    public String id() {
        return spec.id();
    }

    public Dimension dimension() {
        return spec.dimension();
    }

    public long capacity() {
        return capacity;
    }

    /** The most a bucket of this limit holds: the burst when one is set below the capacity. */
    public long burst() {
        long b = burst;
        long c = capacity;
        return b > 0 && b < c ? b : c;
    }

    /**
     * The room a call of {@code amount} must find before it takes what it needs. A configured limit's
     * capacity, and a capacity the provider announced, are rules: a call larger than it never fits.
     * A burst only paces: a call larger than the burst waits for a full bucket and takes the rest as
     * a debt the refill pays back (a 5,000-token call fits a 120k-a-minute limit with a burst of
     * one second's 2,000). So does a call larger than a capacity Sluice inferred from what
     * remained: a learned figure paces calls and never locks a scope out.
     */
    public long roomNeededFor(long amount) {
        if (amount > capacity && (spec.source() != LimitSpec.Source.LEARNED || capacityAnnounced)) {
            return amount;
        }
        return Math.min(amount, burst());
    }

    /** Whether the provider announced this learned limit's capacity (rather than Sluice inferring it). */
    public boolean capacityAnnounced() {
        return capacityAnnounced;
    }

    /** Records whether the provider announced this learned limit's capacity (Azure announces only what remains). */
    public void setCapacityAnnounced(boolean announced) {
        this.capacityAnnounced = announced;
    }

    /**
     * Adjusts the burst (0: the capacity). Learned limits: the most the provider has shown to be left
     * at once; configured ones: live tuning. A bucket holding more than the new burst keeps only
     * the burst: lowering it never lets more through at once.
     */
    public void setBurst(long newBurst, long nowNanos, long nowMillis) {
        if (newBurst < 0) {
            throw new IllegalArgumentException("burst must be >= 0, was " + newBurst);
        }
        this.burst = newBurst;
        for (Bucket b : buckets()) {
            b.capacityChanged(nowNanos, nowMillis);
        }
    }

    public boolean enforced() {
        return enforced;
    }

    public boolean mirrorsProvider() {
        return spec.mirrorsProvider();
    }

    long windowNanos() {
        return windowNanos;
    }

    /** The burst as set (0: the capacity), which may exceed a capacity lowered since; {@link #burst()} is what holds. */
    public long burstSetting() {
        return burst;
    }

    /**
     * Live tuning: a new capacity applies to every bucket of this limit at the next admission. A
     * bucket holding more than the burst that holds after it keeps only that burst.
     */
    public void setCapacity(long newCapacity, long nowNanos, long nowMillis) {
        if (newCapacity <= 0) {
            throw new IllegalArgumentException("capacity must be > 0, was " + newCapacity);
        }
        this.capacity = newCapacity;
        for (Bucket b : buckets()) {
            b.capacityChanged(nowNanos, nowMillis);
        }
    }

    /** Counts a rejection this limit caused. */
    public void countRejection(dev.sluice.core.GatewayDecision decision) {
        rejections[decision.ordinal()].increment();
    }

    /** Rejections this limit caused, by decision. */
    public long rejections(dev.sluice.core.GatewayDecision decision) {
        return rejections[decision.ordinal()].sum();
    }

    /** Live tuning: an unenforced limit is counted and shown but never delays or rejects. */
    public void setEnforced(boolean value) {
        this.enforced = value;
    }

    /** Whether this limit applies to a call (its provider, tenant and model filters). */
    public boolean appliesTo(CallContext call) {
        if (spec.provider() != null && !spec.provider().equals(call.provider())) {
            return false;
        }
        if (spec.tenant() != null && !spec.tenant().equals(call.tenant())) {
            return false;
        }
        if (!spec.models().isEmpty() && !ModelPatterns.matches(spec.models(), call.model())) {
            return false;
        }
        return spec.tenant() != null || spec.level() == ScopeLevel.ORGANIZATION || scopeValueOf(call) != null;
    }

    /** The bucket this call is counted in, created if needed; null when the limit does not apply. */
    public Bucket bucketFor(CallContext call, long nowNanos, long nowMillis) {
        if (!appliesTo(call)) {
            return null;
        }
        if (single != null) {
            return single;
        }
        String value = scopeValueOf(call);
        return perValue.get(value, new NewBucket(nowNanos, nowMillis));
    }

    /** The bucket of one scope value (what {@link Bucket#scopeValue()} names), created if needed. */
    public Bucket bucketForValue(String value, long nowNanos, long nowMillis) {
        if (single != null) {
            return single;
        }
        return perValue.get(value, new NewBucket(nowNanos, nowMillis));
    }

    /**
     * Reads this limit's bucket as a look-up would, so a bucket still in use is not evicted as
     * idle: for a route kept without being resolved again.
     */
    public void keepAlive(Bucket bucket) {
        if (perValue != null) {
            perValue.getIfPresent(bucket.scopeValue());
        }
    }

    /**
     * Not lambdas, this and {@link #SYSTEM_NANO_TIME}: limits are built and their first buckets
     * made on the application's start-up, where the JVM spins a class for each lambda
     * (docs/startup-figures.md).
     */
    private final class NewBucket implements Function<String, Bucket> {
        private final long nowNanos;
        private final long nowMillis;

        NewBucket(long nowNanos, long nowMillis) {
            this.nowNanos = nowNanos;
            this.nowMillis = nowMillis;
        }

        @Override
        public Bucket apply(String value) {
            return newBucket(value, nowNanos, nowMillis);
        }
    }

    private static final LongSupplier SYSTEM_NANO_TIME = new LongSupplier() {
        @Override
        public long getAsLong() {
            return System.nanoTime();
        }
    };

    private String scopeValueOf(CallContext call) {
        switch (spec.level()) {
            case TENANT:
                return call.tenant();
            case TEAM:
                return call.team();
            case API_KEY:
                return call.apiKeyId();
            case MODEL_PROFILE:
                return call.model();
            case PROVIDER_DEPLOYMENT:
                return call.deployment() != null ? call.deployment() : call.model();
            case ORGANIZATION:
            default:
                return "";
        }
    }

    /** Every live bucket of this limit. */
    public Collection<Bucket> buckets() {
        if (single != null) {
            return Collections.singletonList(single);
        }
        return new ArrayList<>(perValue.asMap().values());
    }

    /** Human-readable scope of one of this limit's buckets. */
    String scopeName(String scopeValue) {
        if (displayScope != null) {
            return displayScope;
        }
        String prefix = spec.provider() != null ? spec.provider() : "sluice";
        if (spec.tenant() != null) {
            return prefix + "/tenant=" + spec.tenant();
        }
        if (spec.level() == ScopeLevel.ORGANIZATION) {
            return prefix;
        }
        return prefix + "/" + spec.level().configName() + "=" + scopeValue;
    }

    @Override
    public String toString() {
        return spec.toString();
    }

    /** Builds each windowed bucket its own schedule (daily schedules cache their current day). */
    private static final class WindowScheduleFactory {
        private final LimitSpec spec;

        WindowScheduleFactory(LimitSpec spec) {
            this.spec = spec;
        }

        WindowSchedule create() {
            if (spec.algorithm() == Algorithm.DAILY_RESET) {
                return WindowSchedule.daily(spec.resetAt(), spec.zone());
            }
            if (spec.algorithm() == Algorithm.CALENDAR) {
                return WindowSchedule.calendar(spec.period(), spec.resetAt(), spec.zone());
            }
            return WindowSchedule.fixed(spec.window().toMillis());
        }
    }

    /** Matches model names against patterns with an optional trailing {@code *}. */
    static final class ModelPatterns {
        private ModelPatterns() {}

        static boolean matches(List<String> patterns, String model) {
            if (model == null) {
                return false;
            }
            for (String p : patterns) {
                if (p.endsWith("*") ? model.startsWith(p.substring(0, p.length() - 1)) : p.equals(model)) {
                    return true;
                }
            }
            return false;
        }
    }
}
