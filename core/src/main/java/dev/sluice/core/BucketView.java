package dev.sluice.core;

import dev.sluice.config.Dimension;
import dev.sluice.core.quota.Bucket;
import dev.sluice.core.quota.Limit;
import dev.sluice.core.quota.LimitSpec;

/** What one bucket held at one moment, for status views and JMX. Immutable. */
public final class BucketView {

    private final String limitId;
    private final String scope;
    private final String scopeValue;
    private final Dimension dimension;
    private final long capacity;
    private final long room;
    private final long reserved;
    private final boolean enforced;
    private final boolean learned;
    private final boolean mirrorsProvider;
    private final String window;
    private final String algorithm;

    private BucketView(Bucket b, long room) {
        Limit l = b.limit();
        LimitSpec s = l.spec();
        this.limitId = l.id();
        this.scope = b.scopeName();
        this.scopeValue = b.scopeValue();
        this.dimension = l.dimension();
        this.capacity = l.capacity();
        this.room = room;
        this.reserved = b.reserved();
        this.enforced = l.enforced();
        this.learned = s.source() == LimitSpec.Source.LEARNED;
        this.mirrorsProvider = l.mirrorsProvider();
        this.window = s.period() != null
                ? s.period().configName()
                : s.window() == null ? "" : s.window().toString().substring(2).toLowerCase(java.util.Locale.ROOT);
        this.algorithm = s.dimension() == Dimension.CONCURRENCY
                ? "concurrency"
                : s.algorithm().configName();
    }

    static BucketView of(Bucket b, long nowNanos, long nowMillis) {
        return new BucketView(b, b.roomAsCounted(nowNanos, nowMillis));
    }

    public String limitId() {
        return limitId;
    }

    /** E.g. {@code openai-prod/tenant=search}. */
    public String scope() {
        return scope;
    }

    /** The value of the limit's scope level this bucket counts for (a tenant, a key...); empty for organization-wide. */
    public String scopeValue() {
        return scopeValue;
    }

    public Dimension dimension() {
        return dimension;
    }

    public long capacity() {
        return capacity;
    }

    /**
     * Room left now as the limit's owner counts it (negative after debits beyond estimates); a
     * provider mirror admits up to its transit allowance less than this.
     */
    public long room() {
        return room;
    }

    /** Reserved by calls in flight and not yet settled (in flight, for concurrency). */
    public long reserved() {
        return reserved;
    }

    public boolean enforced() {
        return enforced;
    }

    /** Learned from the provider's headers rather than configured. */
    public boolean learned() {
        return learned;
    }

    public boolean mirrorsProvider() {
        return mirrorsProvider;
    }

    /** The window, e.g. {@code 1m}, {@code 10s}; empty for concurrency. */
    public String window() {
        return window;
    }

    public String algorithm() {
        return algorithm;
    }

    /** Share of the capacity in use, 0..1 (over 1 after debits beyond estimates). */
    public double utilisation() {
        return capacity == 0 ? 0 : Math.max(0, (double) (capacity - room) / capacity);
    }
}
