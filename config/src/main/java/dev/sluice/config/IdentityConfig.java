package dev.sluice.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where a call's tenant, team and traffic class come from: for each, an ordered list of
 * {@link IdentityRule}s; the first rule that yields a value wins, and none yielding means no
 * value (the call counts at organization level, in the default class). Defaults: tenant from
 * header {@code X-Sluice-Tenant}, then the API key id; traffic class from header
 * {@code X-Sluice-Class}, then {@code default}; no team.
 */
public final class IdentityConfig {
    /** The header the default rules read the tenant from. */
    public static final String TENANT_HEADER = "X-Sluice-Tenant";
    /** The header the default rules read the traffic class from. */
    public static final String CLASS_HEADER = "X-Sluice-Class";

    private static final IdentityConfig DEFAULTS = new IdentityConfig(
            List.of(IdentityRule.header(TENANT_HEADER), IdentityRule.apiKeyId()),
            List.of(),
            List.of(IdentityRule.header(CLASS_HEADER), IdentityRule.defaultValue(TrafficClassConfig.DEFAULT.name())));

    private final List<IdentityRule> tenant;
    private final List<IdentityRule> team;
    private final List<IdentityRule> trafficClass;

    private IdentityConfig(List<IdentityRule> tenant, List<IdentityRule> team, List<IdentityRule> trafficClass) {
        this.tenant = Collections.unmodifiableList(new ArrayList<>(tenant));
        this.team = Collections.unmodifiableList(new ArrayList<>(team));
        this.trafficClass = Collections.unmodifiableList(new ArrayList<>(trafficClass));
    }

    public static IdentityConfig defaults() {
        return DEFAULTS;
    }

    /** Starts from the defaults. */
    public static Builder builder() {
        return DEFAULTS.toBuilder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.tenant = new ArrayList<>(tenant);
        b.team = new ArrayList<>(team);
        b.trafficClass = new ArrayList<>(trafficClass);
        return b;
    }

    public List<IdentityRule> tenant() {
        return tenant;
    }

    public List<IdentityRule> team() {
        return team;
    }

    public List<IdentityRule> trafficClass() {
        return trafficClass;
    }

    void validate(String path, Issues issues) {
        validate(Issues.join(path, "tenant"), tenant, issues);
        validate(Issues.join(path, "team"), team, issues);
        validate(Issues.join(path, "trafficClass"), trafficClass, issues);
    }

    private static void validate(String path, List<IdentityRule> rules, Issues issues) {
        for (int i = 0; i < rules.size(); i++) {
            rules.get(i).validate(path + "[" + i + "]", issues);
        }
    }

    /** Traffic class values that rules yield from config (default and calling-package values), with their paths. */
    void classValues(String path, Map<String, String> pathToValue) {
        for (int i = 0; i < trafficClass.size(); i++) {
            IdentityRule r = trafficClass.get(i);
            String p = Issues.join(path, "trafficClass") + "[" + i + "]";
            if (r.kind() == IdentityRule.Kind.DEFAULT && r.argument() != null) {
                pathToValue.put(p + ".default", r.argument());
            } else if (r.kind() == IdentityRule.Kind.CALLING_PACKAGE) {
                for (Map.Entry<String, String> e : r.packageValues().entrySet()) {
                    pathToValue.put(p + ".callingPackage." + e.getKey(), e.getValue());
                }
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof IdentityConfig)) {
            return false;
        }
        IdentityConfig c = (IdentityConfig) o;
        return tenant.equals(c.tenant) && team.equals(c.team) && trafficClass.equals(c.trafficClass);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tenant, team, trafficClass);
    }

    @Override
    public String toString() {
        return "IdentityConfig{tenant=" + tenant + ", team=" + team + ", trafficClass=" + trafficClass + "}";
    }

    /** Builds an {@link IdentityConfig}; each list replaces that dimension's rules (an empty list: no rules). */
    public static final class Builder {
        List<IdentityRule> tenant;
        List<IdentityRule> team;
        List<IdentityRule> trafficClass;

        private Builder() {}

        public Builder tenant(List<IdentityRule> rules) {
            this.tenant = new ArrayList<>(Objects.requireNonNull(rules, "rules"));
            return this;
        }

        public Builder team(List<IdentityRule> rules) {
            this.team = new ArrayList<>(Objects.requireNonNull(rules, "rules"));
            return this;
        }

        public Builder trafficClass(List<IdentityRule> rules) {
            this.trafficClass = new ArrayList<>(Objects.requireNonNull(rules, "rules"));
            return this;
        }

        public IdentityConfig build() {
            IdentityConfig c = new IdentityConfig(tenant, team, trafficClass);
            Issues issues = new Issues();
            c.validate("", issues);
            issues.throwIfAny("identity config");
            return c;
        }

        IdentityConfig buildUnchecked() {
            return new IdentityConfig(tenant, team, trafficClass);
        }
    }
}
