package dev.sluice.core.quota;

import dev.sluice.config.Algorithm;
import dev.sluice.config.CalendarPeriod;
import dev.sluice.config.Dimension;
import dev.sluice.config.ScopeLevel;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;

/**
 * The description of one limit, as config declares it or code builds it: what it counts, how much,
 * over which window and algorithm, at which level of the hierarchy, for which calls. Immutable.
 */
public final class LimitSpec {

    /** Where a limit comes from. */
    public enum Source {
        /** Declared in config (or built in code). */
        CONFIGURED,
        /** Learned from a provider's rate-limit headers. */
        LEARNED,
        /** Set by a provider's ramp ({@link Ramp}): how fast its admitted rate may grow. */
        RAMP
    }

    private final String id;
    private final Dimension dimension;
    private final long capacity;
    private final Duration window;
    private final Algorithm algorithm;
    private final LocalTime resetAt;
    private final ZoneId zone;
    private final CalendarPeriod period;
    private final double warnAt;
    private final ScopeLevel level;
    private final String provider;
    private final List<String> models;
    private final String tenant;
    private final boolean enforced;
    private final boolean shared;
    private final boolean mirrorsProvider;
    private final Source source;
    private final long burst;

    private LimitSpec(Builder b) {
        this.id = Objects.requireNonNull(b.id, "id");
        this.dimension = Objects.requireNonNull(b.dimension, "dimension");
        if (b.capacity <= 0) {
            throw new IllegalArgumentException("limit " + b.id + ": capacity must be > 0, was " + b.capacity);
        }
        this.capacity = b.capacity;
        this.algorithm = b.algorithm;
        if (dimension != Dimension.CONCURRENCY) {
            if (b.window == null || b.window.isZero() || b.window.isNegative()) {
                if (algorithm != Algorithm.DAILY_RESET && algorithm != Algorithm.CALENDAR) {
                    throw new IllegalArgumentException("limit " + b.id + ": a window > 0 is required");
                }
            }
        }
        if (algorithm == Algorithm.CALENDAR && b.period == null) {
            throw new IllegalArgumentException("limit " + b.id + ": a calendar limit needs a period");
        }
        this.period = algorithm == Algorithm.CALENDAR ? b.period : null;
        this.window = algorithm == Algorithm.DAILY_RESET
                ? Duration.ofDays(1)
                : algorithm == Algorithm.CALENDAR ? b.period.longest() : b.window;
        if (b.warnAt <= 0 || b.warnAt > 1) {
            throw new IllegalArgumentException("limit " + b.id + ": warnAt must be in (0, 1], was " + b.warnAt);
        }
        this.warnAt = b.warnAt;
        this.resetAt = b.resetAt;
        this.zone = b.zone;
        this.level = b.level;
        this.provider = b.provider;
        this.models = List.copyOf(b.models);
        this.tenant = b.tenant;
        this.enforced = b.enforced;
        this.shared = b.shared;
        this.mirrorsProvider = b.mirrorsProvider;
        this.source = b.source;
        if (b.burst < 0) {
            throw new IllegalArgumentException("limit " + b.id + ": burst must be >= 0, was " + b.burst);
        }
        this.burst = b.burst;
    }

    /** @param id unique name of the limit, shown in JMX and rejections */
    public static Builder builder(String id, Dimension dimension, long capacity) {
        return new Builder(id, dimension, capacity);
    }

    /** A token bucket of {@code capacity} per {@code window}, organization-wide. */
    public static LimitSpec perWindow(String id, Dimension dimension, long capacity, Duration window) {
        return builder(id, dimension, capacity).window(window).build();
    }

    public String id() {
        return id;
    }

    public Dimension dimension() {
        return dimension;
    }

    public long capacity() {
        return capacity;
    }

    /** The window; null for concurrency; one day for daily resets. */
    public Duration window() {
        return window;
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    public LocalTime resetAt() {
        return resetAt;
    }

    public ZoneId zone() {
        return zone;
    }

    /** The calendar period (hour, day, week, month) of a calendar limit; null for others. */
    public CalendarPeriod period() {
        return period;
    }

    /** For spend: the share spent at which the budget warns, once per period. */
    public double warnAt() {
        return warnAt;
    }

    public ScopeLevel level() {
        return level;
    }

    /** The provider whose calls this limit applies to, or null for every provider. */
    public String provider() {
        return provider;
    }

    /** Model patterns (trailing {@code *} allowed) this limit applies to; empty for every model. */
    public List<String> models() {
        return models;
    }

    /** The one tenant this limit applies to (a tenant's own limit), or null. */
    public String tenant() {
        return tenant;
    }

    public boolean enforced() {
        return enforced;
    }

    /** Whether the bucket lives in the shared store when there is one. */
    public boolean shared() {
        return shared;
    }

    /**
     * Whether this limit is the provider's own (declared under a provider, or learned from its
     * headers): charged the way the provider charges, and shared across a fleet.
     */
    public boolean mirrorsProvider() {
        return mirrorsProvider;
    }

    public Source source() {
        return source;
    }

    /**
     * For token buckets, the most that may be spent at once after an idle period; 0 means the
     * whole capacity (the default). A provider that enforces a per-minute limit over sub-minute
     * periods has a burst much smaller than its capacity.
     */
    public long burst() {
        return burst;
    }

    public Builder toBuilder() {
        Builder b = new Builder(id, dimension, capacity);
        b.window = window;
        b.algorithm = algorithm;
        b.resetAt = resetAt;
        b.zone = zone;
        b.period = period;
        b.warnAt = warnAt;
        b.level = level;
        b.provider = provider;
        b.models = models;
        b.tenant = tenant;
        b.enforced = enforced;
        b.shared = shared;
        b.mirrorsProvider = mirrorsProvider;
        b.source = source;
        b.burst = burst;
        return b;
    }

    @Override
    public String toString() {
        return id + "(" + dimension + " " + capacity + (window != null ? "/" + window : "") + " " + algorithm
                + " at " + level + (provider != null ? " provider=" + provider : "")
                + (tenant != null ? " tenant=" + tenant : "") + (enforced ? "" : " not enforced") + ")";
    }

    /** Builds a {@link LimitSpec}; defaults: token bucket, organization level, enforced. */
    public static final class Builder {
        private final String id;
        private final Dimension dimension;
        private long capacity;
        private Duration window;
        private Algorithm algorithm = Algorithm.TOKEN_BUCKET;
        private LocalTime resetAt = LocalTime.MIDNIGHT;
        private ZoneId zone = ZoneId.of("UTC");
        private CalendarPeriod period;
        private double warnAt = 0.8;
        private ScopeLevel level = ScopeLevel.ORGANIZATION;
        private String provider;
        private List<String> models = List.of();
        private String tenant;
        private boolean enforced = true;
        private boolean shared;
        private boolean mirrorsProvider;
        private Source source = Source.CONFIGURED;
        private long burst;

        private Builder(String id, Dimension dimension, long capacity) {
            this.id = id;
            this.dimension = dimension;
            this.capacity = capacity;
        }

        public Builder capacity(long v) {
            this.capacity = v;
            return this;
        }

        public Builder window(Duration v) {
            this.window = v;
            return this;
        }

        public Builder algorithm(Algorithm v) {
            this.algorithm = Objects.requireNonNull(v);
            return this;
        }

        public Builder dailyReset(LocalTime at, ZoneId inZone) {
            this.algorithm = Algorithm.DAILY_RESET;
            this.resetAt = Objects.requireNonNull(at);
            this.zone = Objects.requireNonNull(inZone);
            return this;
        }

        /** Resets at the start of each calendar period, at {@code at} in {@code inZone}. */
        public Builder calendar(CalendarPeriod every, LocalTime at, ZoneId inZone) {
            this.algorithm = Algorithm.CALENDAR;
            this.period = Objects.requireNonNull(every);
            this.resetAt = Objects.requireNonNull(at);
            this.zone = Objects.requireNonNull(inZone);
            return this;
        }

        /** For spend: the share spent at which the budget warns (default 0.8). */
        public Builder warnAt(double v) {
            this.warnAt = v;
            return this;
        }

        public Builder level(ScopeLevel v) {
            this.level = Objects.requireNonNull(v);
            return this;
        }

        public Builder provider(String v) {
            this.provider = v;
            return this;
        }

        public Builder models(List<String> v) {
            this.models = v == null ? List.of() : v;
            return this;
        }

        public Builder tenant(String v) {
            this.tenant = v;
            return this;
        }

        public Builder enforced(boolean v) {
            this.enforced = v;
            return this;
        }

        public Builder shared(boolean v) {
            this.shared = v;
            return this;
        }

        public Builder mirrorsProvider(boolean v) {
            this.mirrorsProvider = v;
            return this;
        }

        /** Token-bucket size when it is smaller than the capacity; 0 for the capacity. */
        public Builder burst(long v) {
            this.burst = v;
            return this;
        }

        public Builder source(Source v) {
            this.source = Objects.requireNonNull(v);
            return this;
        }

        public LimitSpec build() {
            return new LimitSpec(this);
        }
    }
}
