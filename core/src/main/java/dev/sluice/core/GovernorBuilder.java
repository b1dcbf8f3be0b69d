package dev.sluice.core;

import dev.sluice.config.Mode;
import dev.sluice.core.quota.LimitSpec;
import dev.sluice.core.schedule.Timer;
import dev.sluice.core.schedule.TrafficClass;
import dev.sluice.core.store.QuotaStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Builds a {@link Governor}; the built-in traffic classes are always present. */
public final class GovernorBuilder {
    Clock clock = Clock.SYSTEM;
    Timer timer;
    Mode mode = Mode.ENFORCE;
    Duration leaseTimeout = Duration.ofMinutes(10);
    Duration probeTimeout = Duration.ofSeconds(30);
    Duration coldStartWait = Duration.ZERO;
    boolean adoptHeaderLimits;
    boolean weightedClasses;
    QuotaStore store = QuotaStore.local();
    final Map<String, LimitSpec> limits = new LinkedHashMap<>();
    final Map<String, TrafficClass> classes = new LinkedHashMap<>();
    final Map<String, Double> tenantWeights = new LinkedHashMap<>();
    final Map<String, Double> guaranteedShares = new LinkedHashMap<>();
    final java.util.List<Ramps.Declared> ramps = new java.util.ArrayList<>();

    GovernorBuilder() {
        trafficClass(TrafficClass.interactive());
        trafficClass(TrafficClass.defaultClass());
        trafficClass(TrafficClass.batch());
    }

    public GovernorBuilder clock(Clock v) {
        this.clock = Objects.requireNonNull(v);
        return this;
    }

    public GovernorBuilder timer(Timer v) {
        this.timer = v;
        return this;
    }

    public GovernorBuilder mode(Mode v) {
        this.mode = Objects.requireNonNull(v);
        return this;
    }

    public GovernorBuilder leaseTimeout(Duration v) {
        if (v.isNegative() || v.isZero()) {
            throw new IllegalArgumentException("leaseTimeout must be > 0");
        }
        this.leaseTimeout = v;
        return this;
    }

    /**
     * How long calls to a provider scope Sluice knows nothing about wait for its first call's
     * answer before they go anyway (zero, the default here: they go at once).
     */
    public GovernorBuilder coldStartWait(Duration v) {
        if (v.isNegative()) {
            throw new IllegalArgumentException("coldStartWait must be >= 0, was " + v);
        }
        this.coldStartWait = v;
        return this;
    }

    /** How long a probe after a provider pause may go unanswered before another call probes. */
    public GovernorBuilder probeTimeout(Duration v) {
        this.probeTimeout = v;
        return this;
    }

    /**
     * Weighted priority between traffic classes (each class gets turns in proportion to its
     * priority) instead of strict priority (higher classes always first).
     */
    public GovernorBuilder weightedClasses(boolean v) {
        this.weightedClasses = v;
        return this;
    }

    /**
     * Where the buckets of shared limits (the provider's own, and those marked shared) live:
     * the governor owns the store from now on and closes it with itself.
     */
    public GovernorBuilder store(QuotaStore v) {
        this.store = Objects.requireNonNull(v);
        return this;
    }

    public GovernorBuilder adoptHeaderLimits(boolean v) {
        this.adoptHeaderLimits = v;
        return this;
    }

    public GovernorBuilder limit(LimitSpec spec) {
        if (limits.putIfAbsent(spec.id(), spec) != null) {
            throw new IllegalArgumentException("duplicate limit id " + spec.id());
        }
        return this;
    }

    /** Adds a traffic class or replaces the built-in of the same name. */
    public GovernorBuilder trafficClass(TrafficClass c) {
        classes.put(c.name(), c);
        return this;
    }

    public GovernorBuilder tenantWeight(String tenant, double weight) {
        if (!(weight > 0)) {
            throw new IllegalArgumentException("weight must be > 0, was " + weight);
        }
        tenantWeights.put(tenant, weight);
        return this;
    }

    /**
     * A configured tenant: its weight in fair sharing and its guaranteed share (0 for none) of
     * every limit shared between tenants.
     */
    public GovernorBuilder tenant(String tenant, double weight, double guaranteedShare) {
        tenantWeight(tenant, weight);
        guaranteedShares.put(tenant, guaranteedShare);
        return this;
    }

    /**
     * A ramp on {@code provider}'s calls (see {@link dev.sluice.core.quota.Ramp}): its requests
     * limit joins the limits; {@code requestsPerSecond} is the provider's requests limit, what a
     * schedule takes a share of.
     */
    public GovernorBuilder ramp(String provider, dev.sluice.config.RampConfig config, double requestsPerSecond) {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(config, "config");
        limit(dev.sluice.core.quota.Ramp.limitSpec(provider, config, requestsPerSecond));
        ramps.add(new Ramps.Declared(provider, config, requestsPerSecond));
        return this;
    }

    public Governor build() {
        return new Governor(this);
    }
}
