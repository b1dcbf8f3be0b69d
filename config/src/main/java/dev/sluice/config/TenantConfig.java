package dev.sluice.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A tenant the governor shares capacity between: its {@link #weight()} inside each traffic
 * class (weighted deficit round robin), a {@link #guaranteedShare()} it can always claim back
 * from borrowers, and limits that apply to it alone (each with level tenant and
 * {@link LimitConfig#scopeValue()} = this tenant). Tenants not declared get weight 1 and no
 * guarantee.
 */
public final class TenantConfig {
    private final String name;
    private final double weight;
    private final double guaranteedShare;
    private final List<LimitConfig> limits;

    private TenantConfig(Builder b) {
        this.name = b.name;
        this.weight = b.weight;
        this.guaranteedShare = b.guaranteedShare;
        List<LimitConfig> own = new ArrayList<>(b.limits.size());
        for (LimitConfig l : b.limits) {
            own.add(l.toBuilder()
                    .level(ScopeLevel.TENANT)
                    .scopeValue(name)
                    .mirrorsProvider(false)
                    .buildUnchecked());
        }
        this.limits = Collections.unmodifiableList(own);
    }

    public static Builder builder(String name) {
        return new Builder().name(name);
    }

    static Builder builder() {
        return new Builder();
    }

    /** A tenant with this weight, no guarantee and no limits of its own. */
    public static TenantConfig of(String name, double weight) {
        return builder(name).weight(weight).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.weight = weight;
        b.guaranteedShare = guaranteedShare;
        b.limits = new ArrayList<>(limits);
        return b;
    }

    /** The tenant value as identity rules produce it. */
    public String name() {
        return name;
    }

    /** Relative share when tenants compete within a class (default 1). */
    public double weight() {
        return weight;
    }

    /** Fraction of every shared bucket this tenant can always get, reclaimed first from borrowers (default 0). */
    public double guaranteedShare() {
        return guaranteedShare;
    }

    /** Limits for this tenant alone. */
    public List<LimitConfig> limits() {
        return limits;
    }

    void validate(String path, Issues issues) {
        if (name == null) {
            issues.missing(Issues.join(path, "name"));
        } else if (name.trim().isEmpty()) {
            issues.add(Issues.join(path, "name"), name, "must not be empty");
        }
        issues.check(weight > 0 && Double.isFinite(weight), Issues.join(path, "weight"), weight, "> 0");
        issues.check(
                guaranteedShare >= 0 && guaranteedShare < 1,
                Issues.join(path, "guaranteedShare"),
                guaranteedShare,
                ">= 0 and < 1");
        for (int i = 0; i < limits.size(); i++) {
            limits.get(i).validate(Issues.index(path, "limits", i), issues);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TenantConfig)) {
            return false;
        }
        TenantConfig t = (TenantConfig) o;
        return Objects.equals(name, t.name)
                && Double.compare(weight, t.weight) == 0
                && Double.compare(guaranteedShare, t.guaranteedShare) == 0
                && limits.equals(t.limits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, weight, guaranteedShare, limits);
    }

    @Override
    public String toString() {
        return "TenantConfig{" + name + ", weight=" + Issues.number(weight) + ", guaranteedShare="
                + Issues.number(guaranteedShare) + (limits.isEmpty() ? "" : ", limits=" + limits) + "}";
    }

    /** Builds a {@link TenantConfig}: weight 1, no guarantee, no limits unless set. */
    public static final class Builder {
        String name;
        double weight = 1;
        double guaranteedShare;
        List<LimitConfig> limits = new ArrayList<>();

        private Builder() {}

        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        public Builder weight(double weight) {
            this.weight = weight;
            return this;
        }

        public Builder guaranteedShare(double guaranteedShare) {
            this.guaranteedShare = guaranteedShare;
            return this;
        }

        public Builder limits(List<LimitConfig> limits) {
            this.limits = new ArrayList<>(Objects.requireNonNull(limits, "limits"));
            return this;
        }

        /** Adds a limit for this tenant; its level becomes tenant. */
        public Builder limit(LimitConfig limit) {
            this.limits.add(Objects.requireNonNull(limit, "limit"));
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public TenantConfig build() {
            TenantConfig t = new TenantConfig(this);
            Issues issues = new Issues();
            t.validate("", issues);
            issues.throwIfAny("tenant " + name);
            return t;
        }

        TenantConfig buildUnchecked() {
            return new TenantConfig(this);
        }
    }
}
