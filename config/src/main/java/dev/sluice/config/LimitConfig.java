package dev.sluice.config;

import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One limit: what it counts ({@link Dimension}), how much ({@link #capacity()}) per what
 * {@link #window()}, how capacity comes back ({@link Algorithm}), and at which level of the
 * hierarchy it applies ({@link ScopeLevel}: one bucket per tenant, per key...). A limit either
 * mirrors a provider's own limit ({@link #mirrorsProvider()}), so Sluice paces under it, or is
 * Sluice's own (spend caps, team budgets). A limit with {@code enforced = false} is shown and
 * counted but never delays a call: documented, not silently dropped.
 */
public final class LimitConfig {
    static final Pattern ID = Pattern.compile("[a-zA-Z0-9_.:-]+");
    private static final Duration ONE_DAY = Duration.ofDays(1);
    /** The share of a budget spent at which it warns, unless {@code warnAt} says otherwise. */
    public static final double DEFAULT_WARN_AT = 0.8;

    private final String explicitId;
    private final String id;
    private final Dimension dimension;
    private final Long capacity;
    private final Duration declaredWindow;
    private final Algorithm algorithm;
    private final boolean algorithmDeclared;
    private final LocalTime declaredResetAt;
    private final ZoneId declaredZone;
    private final CalendarPeriod period;
    private final Double amount;
    private final Double warnAt;
    private final ScopeLevel level;
    private final String scopeValue;
    private final String provider;
    private final List<String> models;
    private final boolean enforced;
    private final boolean shared;
    private final boolean mirrorsProvider;
    private final Long burstCount;
    private final Duration burstDuration;
    /** The period the provider documents enforcing its limits over, set on a provider's own limits; or null. */
    private final Duration providerBurst;

    private LimitConfig(Builder b) {
        this.explicitId = b.id;
        this.dimension = b.dimension;
        this.capacity = b.capacity;
        this.declaredWindow = b.window;
        this.algorithm =
                b.algorithm != null ? b.algorithm : b.period != null ? Algorithm.CALENDAR : Algorithm.TOKEN_BUCKET;
        this.algorithmDeclared = b.algorithm != null;
        this.declaredResetAt = b.resetAt;
        this.declaredZone = b.zone;
        this.period = b.period;
        this.amount = b.amount;
        this.warnAt = b.warnAt;
        this.level = b.level;
        this.scopeValue = b.scopeValue;
        this.provider = b.provider;
        this.models = Collections.unmodifiableList(new ArrayList<>(b.models));
        this.enforced = b.enforced;
        this.shared = b.shared;
        this.mirrorsProvider = b.mirrorsProvider;
        this.burstCount = b.burstCount;
        this.burstDuration = b.burstDuration;
        this.providerBurst = b.providerBurst;
        this.id = explicitId != null ? explicitId : deriveId();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A token-bucket limit at organization level: {@code of(REQUESTS, 500, Duration.ofMinutes(1))}. */
    public static LimitConfig of(Dimension dimension, long capacity, Duration window) {
        return builder().dimension(dimension).capacity(capacity).window(window).build();
    }

    /** At most {@code capacity} calls in flight at once, at organization level. */
    public static LimitConfig concurrency(long capacity) {
        return builder().dimension(Dimension.CONCURRENCY).capacity(capacity).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.id = explicitId;
        b.dimension = dimension;
        b.capacity = capacity;
        b.window = declaredWindow;
        b.algorithm = algorithmDeclared ? algorithm : null;
        b.resetAt = declaredResetAt;
        b.zone = declaredZone;
        b.period = period;
        b.amount = amount;
        b.warnAt = warnAt;
        b.level = level;
        b.scopeValue = scopeValue;
        b.provider = provider;
        b.models = new ArrayList<>(models);
        b.enforced = enforced;
        b.shared = shared;
        b.mirrorsProvider = mirrorsProvider;
        b.burstCount = burstCount;
        b.burstDuration = burstDuration;
        b.providerBurst = providerBurst;
        return b;
    }

    /**
     * Unique among all limits; the JMX name and what rejections report. Derived when not set:
     * {@code openai-prod.total_tokens.1m}, {@code gw.api_key.requests.1m},
     * {@code tenant.search.spend.1d}, {@code organization.spend.1d}.
     */
    public String id() {
        return id;
    }

    /** True when the id was given rather than derived. */
    public boolean hasExplicitId() {
        return explicitId != null;
    }

    public Dimension dimension() {
        return dimension;
    }

    /**
     * Units per window (or calls in flight for concurrency); for spend, micro-units of the
     * config's currency (an {@link #amount()} of 25.00 is a capacity of 25,000,000).
     */
    public long capacity() {
        if (capacity != null) {
            return capacity;
        }
        return amount == null ? 0 : Math.round(amount * 1_000_000d);
    }

    /** A spend limit's amount in the config's currency unit, as declared; null when given as a capacity. */
    public Double amount() {
        return amount;
    }

    /**
     * For spend: the share of the amount spent at which a warning goes to the log and out as a JMX
     * notification, once per period (default 0.8); null for other dimensions.
     */
    public Double warnAt() {
        if (dimension != Dimension.SPEND) {
            return null;
        }
        return warnAt == null ? DEFAULT_WARN_AT : warnAt;
    }

    /** The calendar period of a calendar limit (hour, day, week, month), or null. */
    public CalendarPeriod period() {
        return period;
    }

    /** The window capacity applies to; 1 day for daily_reset; null for concurrency, which has none. */
    public Duration window() {
        if (dimension == Dimension.CONCURRENCY) {
            return null;
        }
        if (algorithm == Algorithm.DAILY_RESET && declaredWindow == null) {
            return ONE_DAY;
        }
        if (algorithm == Algorithm.CALENDAR && period != null) {
            return period.longest();
        }
        return declaredWindow;
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    /** Local time of the reset (default midnight) for daily_reset and calendar periods; null for other algorithms. */
    public LocalTime resetAt() {
        if (!resets()) {
            return null;
        }
        return declaredResetAt == null ? LocalTime.MIDNIGHT : declaredResetAt;
    }

    /** Zone of the reset (default UTC) for daily_reset and calendar periods; null for other algorithms. */
    public ZoneId zone() {
        if (!resets()) {
            return null;
        }
        return declaredZone == null ? ZoneOffset.UTC : declaredZone;
    }

    private boolean resets() {
        return algorithm == Algorithm.DAILY_RESET || algorithm == Algorithm.CALENDAR;
    }

    /** One bucket per distinct value of this level (organization: one bucket). */
    public ScopeLevel level() {
        return level;
    }

    /**
     * For a limit declared in a tenant entry, that tenant's name: the limit then has exactly one
     * bucket, for that tenant. Null for limits that make a bucket per value of their level.
     */
    public String scopeValue() {
        return scopeValue;
    }

    /** The provider whose calls this limit counts, or null for calls to every provider. */
    public String provider() {
        return provider;
    }

    /** Models this limit counts ({@code gpt-4o}, {@code gpt-4.1*}); empty = every model. */
    public List<String> models() {
        return models;
    }

    /** True when a call for this model counts against this limit (exact name, or prefix before a trailing {@code *}). */
    public boolean appliesToModel(String model) {
        if (models.isEmpty()) {
            return true;
        }
        if (model == null) {
            return false;
        }
        for (String m : models) {
            if (m.endsWith("*") ? model.startsWith(m.substring(0, m.length() - 1)) : model.equals(m)) {
                return true;
            }
        }
        return false;
    }

    /** False: shown and counted, never delays or rejects a call. */
    public boolean enforced() {
        return enforced;
    }

    /** With a Redis store, whether the bucket lives in the shared store; always true for a provider's own limits. */
    public boolean shared() {
        return shared || mirrorsProvider;
    }

    /** True for a provider's own limit (declared under {@code providers[].limits}), which Sluice mirrors and paces under. */
    public boolean mirrorsProvider() {
        return mirrorsProvider;
    }

    /**
     * The most a token bucket of this limit lets through at once: the declared {@code burst} (a
     * count, or a duration of the rate such as {@code 2s}); for a provider's own limit without one,
     * the rate over the period the provider documents enforcing its limits over
     * ({@link ProviderKind#documentedBurst()}); else 0, meaning the capacity. Never more than the
     * capacity; 0 for windows and concurrency, which have no burst.
     */
    public long burst() {
        if (algorithm != Algorithm.TOKEN_BUCKET || dimension == Dimension.CONCURRENCY) {
            return 0;
        }
        long resolved;
        if (burstCount != null) {
            resolved = burstCount;
        } else if (burstDuration != null) {
            resolved = burstOver(burstDuration);
        } else if (providerBurst != null) {
            resolved = Math.max(1, burstOver(providerBurst));
        } else {
            return 0;
        }
        return resolved >= capacity() ? 0 : Math.max(0, resolved);
    }

    /** The burst as declared: a count, a duration ({@code 2s}), or null when not declared. */
    public String declaredBurst() {
        if (burstCount != null) {
            return Long.toString(burstCount);
        }
        return burstDuration == null ? null : Durations.format(burstDuration);
    }

    /** The rate over {@code d}, rounded down; 0 when the window is unknown. */
    private long burstOver(Duration d) {
        Duration w = window();
        if (w == null || w.isZero() || w.isNegative()) {
            return 0;
        }
        return java.math.BigInteger.valueOf(capacity())
                .multiply(java.math.BigInteger.valueOf(d.toNanos()))
                .divide(java.math.BigInteger.valueOf(w.toNanos()))
                .min(java.math.BigInteger.valueOf(Long.MAX_VALUE))
                .longValue();
    }

    private String deriveId() {
        if (dimension == null || level == null) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        if (mirrorsProvider) {
            if (provider == null) {
                return null;
            }
            parts.add(provider);
            if (level != ScopeLevel.ORGANIZATION) {
                parts.add(level.configName());
            }
        } else if (scopeValue != null) {
            parts.add(level.configName());
            parts.add(scopeValue.replaceAll("[^a-zA-Z0-9_.:-]", "_"));
            if (provider != null) {
                parts.add(provider);
            }
        } else {
            if (provider != null) {
                parts.add(provider);
            }
            parts.add(level.configName());
        }
        parts.add(dimension.configName());
        Duration w = window();
        if (period != null && algorithm == Algorithm.CALENDAR) {
            parts.add(period.configName());
        } else if (w != null && !w.isNegative() && !w.isZero()) {
            parts.add(Durations.format(w));
        }
        return String.join(".", parts);
    }

    void validate(String path, Issues issues) {
        if (explicitId != null && !ID.matcher(explicitId).matches()) {
            issues.add(
                    Issues.join(path, "id"),
                    explicitId,
                    Issues.render(explicitId) + " is not a valid id, use letters, digits and _ . : -");
        }
        if (dimension == null) {
            issues.missing(Issues.join(path, "dimension"));
        }
        validateAmount(path, issues);
        validatePeriod(path, issues);
        validateBurst(path, issues);
        String windowPath = Issues.join(path, "window");
        if (dimension == Dimension.CONCURRENCY) {
            if (declaredWindow != null) {
                issues.add(
                        windowPath,
                        declaredWindow,
                        "not allowed for concurrency: a concurrency limit counts calls in flight and has no window");
            }
            if (algorithm != Algorithm.TOKEN_BUCKET) {
                issues.add(
                        Issues.join(path, "algorithm"),
                        algorithm.configName(),
                        algorithm + " does not apply to concurrency, which has no window");
            }
        } else if (dimension != null) {
            if (algorithm == Algorithm.CALENDAR) {
                if (period == null) {
                    issues.add(
                            Issues.join(path, "period"),
                            null,
                            "required with algorithm calendar: hour, day, week or month");
                }
            } else if (algorithm == Algorithm.DAILY_RESET) {
                if (declaredWindow != null && !declaredWindow.equals(ONE_DAY)) {
                    issues.add(
                            windowPath,
                            declaredWindow,
                            Issues.render(declaredWindow)
                                    + " is not allowed, must be 1d with daily_reset (it resets once a day at resetAt)");
                }
            } else if (declaredWindow == null) {
                issues.add(windowPath, null, "required but missing for dimension " + dimension);
            } else {
                issues.check(
                        !declaredWindow.isNegative() && !declaredWindow.isZero(), windowPath, declaredWindow, "> 0");
            }
        }
        if (!resets()) {
            if (declaredResetAt != null) {
                issues.add(
                        Issues.join(path, "resetAt"),
                        declaredResetAt.toString(),
                        "only allowed with a period or algorithm daily_reset, this limit uses " + algorithm);
            }
            if (declaredZone != null) {
                issues.add(
                        Issues.join(path, "zone"),
                        declaredZone.getId(),
                        "only allowed with a period or algorithm daily_reset, this limit uses " + algorithm);
            }
        }
        if (level == null) {
            issues.missing(Issues.join(path, "level"));
        }
        for (int i = 0; i < models.size(); i++) {
            String m = models.get(i);
            String p = Issues.index(path, "models", i);
            if (m == null || m.isEmpty()) {
                issues.add(p, m, "a model name must not be empty");
            } else if (m.indexOf('*') >= 0 && m.indexOf('*') != m.length() - 1) {
                issues.add(p, m, Issues.render(m) + " is not allowed, only a trailing * is supported (gpt-4.1*)");
            }
        }
    }

    private void validateAmount(String path, Issues issues) {
        String amountPath = Issues.join(path, "amount");
        if (amount != null) {
            if (dimension != null && dimension != Dimension.SPEND) {
                issues.add(amountPath, amount, "only allowed for dimension spend, use capacity for " + dimension);
            } else if (capacity != null) {
                issues.add(amountPath, amount, "give amount or capacity, not both (capacity is in micro-units)");
            } else {
                issues.check(
                        amount > 0 && !amount.isInfinite() && amount * 1_000_000d < Long.MAX_VALUE,
                        amountPath,
                        amount,
                        "> 0");
            }
        } else if (capacity == null) {
            issues.missing(Issues.join(path, dimension == Dimension.SPEND ? "amount" : "capacity"));
        } else {
            issues.check(capacity > 0, Issues.join(path, "capacity"), capacity, "> 0");
        }
        if (warnAt != null) {
            String warnPath = Issues.join(path, "warnAt");
            if (dimension != null && dimension != Dimension.SPEND) {
                issues.add(warnPath, warnAt, "only allowed for dimension spend");
            } else {
                issues.check(warnAt > 0 && warnAt <= 1, warnPath, warnAt, "between 0 (excluded) and 1");
            }
        }
    }

    private void validateBurst(String path, Issues issues) {
        if (burstCount == null && burstDuration == null) {
            return;
        }
        String burstPath = Issues.join(path, "burst");
        Object declared = burstCount != null ? burstCount : burstDuration;
        if (dimension == Dimension.CONCURRENCY || algorithm != Algorithm.TOKEN_BUCKET) {
            issues.add(
                    burstPath,
                    declared,
                    Issues.render(declared) + " is only allowed with algorithm token_bucket (a "
                            + (dimension == Dimension.CONCURRENCY ? "concurrency limit" : algorithm + " limit")
                            + " has no burst)");
            return;
        }
        if (burstCount != null) {
            if (burstCount <= 0) {
                issues.check(false, burstPath, burstCount, "> 0 (the most let through at once)");
            } else if (capacity() > 0 && burstCount > capacity()) {
                issues.check(false, burstPath, burstCount, "at most the capacity, " + capacity());
            }
            return;
        }
        if (burstDuration.isNegative() || burstDuration.isZero()) {
            issues.check(false, burstPath, burstDuration, "> 0 (a duration of the rate, e.g. 2s)");
            return;
        }
        Duration w = window();
        if (w == null) {
            return; // the missing window is reported
        }
        if (burstDuration.compareTo(w) > 0) {
            issues.add(
                    burstPath,
                    burstDuration,
                    Issues.render(burstDuration) + " is longer than the window " + Durations.format(w)
                            + ": a burst is at most the capacity");
        } else if (capacity() > 0 && burstOver(burstDuration) < 1) {
            issues.add(
                    burstPath,
                    burstDuration,
                    Issues.render(burstDuration) + " of " + capacity() + " per " + Durations.format(w)
                            + " is less than 1; give a longer duration or a count");
        }
    }

    private void validatePeriod(String path, Issues issues) {
        if (period == null) {
            return;
        }
        String periodPath = Issues.join(path, "period");
        if (dimension == Dimension.CONCURRENCY) {
            issues.add(periodPath, period.configName(), "not allowed for concurrency, which has no window");
        }
        if (declaredWindow != null) {
            issues.add(
                    Issues.join(path, "window"),
                    declaredWindow,
                    "give window (a rolling window) or period (a calendar period), not both");
        }
        if (algorithm != Algorithm.CALENDAR) {
            issues.add(
                    Issues.join(path, "algorithm"),
                    algorithm.configName(),
                    "not allowed with a period, which resets at the start of each " + period);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LimitConfig)) {
            return false;
        }
        LimitConfig l = (LimitConfig) o;
        return Objects.equals(id, l.id)
                && dimension == l.dimension
                && capacity() == l.capacity()
                && Objects.equals(window(), l.window())
                && algorithm == l.algorithm
                && Objects.equals(resetAt(), l.resetAt())
                && Objects.equals(zone(), l.zone())
                && period == l.period
                && Objects.equals(warnAt(), l.warnAt())
                && level == l.level
                && Objects.equals(scopeValue, l.scopeValue)
                && Objects.equals(provider, l.provider)
                && models.equals(l.models)
                && enforced == l.enforced
                && shared() == l.shared()
                && mirrorsProvider == l.mirrorsProvider
                && burst() == l.burst();
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                id, dimension, capacity(), window(), algorithm, period, level, scopeValue, provider, models, enforced);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("LimitConfig{")
                .append(id)
                .append(": ")
                .append(dimension)
                .append(' ')
                .append(capacity());
        if (period != null) {
            b.append(" per ").append(period);
        } else if (window() != null) {
            b.append(" per ").append(Durations.format(window()));
        }
        b.append(", ").append(algorithm);
        if (resets()) {
            b.append(" at ").append(resetAt()).append(' ').append(zone());
        }
        b.append(", level=").append(level);
        if (scopeValue != null) {
            b.append('=').append(scopeValue);
        }
        if (provider != null) {
            b.append(", provider=").append(provider);
        }
        if (!models.isEmpty()) {
            b.append(", models=").append(models);
        }
        if (burst() > 0) {
            b.append(", burst ").append(burst());
        }
        if (!enforced) {
            b.append(", not enforced");
        }
        if (shared()) {
            b.append(", shared");
        }
        return b.append('}').toString();
    }

    /**
     * Builds a {@link LimitConfig}. Dimension and capacity are required, and a window for
     * everything but concurrency; the rest defaults to a token bucket at organization level,
     * enforced, not shared.
     */
    public static final class Builder {
        String id;
        Dimension dimension;
        Long capacity;
        Duration window;
        Algorithm algorithm;
        LocalTime resetAt;
        ZoneId zone;
        CalendarPeriod period;
        Double amount;
        Double warnAt;
        ScopeLevel level = ScopeLevel.ORGANIZATION;
        String scopeValue;
        String provider;
        List<String> models = new ArrayList<>();
        boolean enforced = true;
        boolean shared;
        boolean mirrorsProvider;
        Long burstCount;
        Duration burstDuration;
        Duration providerBurst;

        private Builder() {}

        /** An explicit id; without one the id is derived from provider, level, dimension and window. */
        public Builder id(String id) {
            this.id = id;
            return this;
        }

        public Builder dimension(Dimension dimension) {
            this.dimension = Objects.requireNonNull(dimension, "dimension");
            return this;
        }

        public Builder capacity(long capacity) {
            this.capacity = capacity;
            return this;
        }

        /** Required except for concurrency (forbidden there) and daily_reset (1 day). */
        public Builder window(Duration window) {
            this.window = window;
            return this;
        }

        public Builder algorithm(Algorithm algorithm) {
            this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
            return this;
        }

        /** A calendar period (hour, day, week, month) instead of a rolling window. */
        public Builder period(CalendarPeriod period) {
            this.period = period;
            return this;
        }

        /** For spend: the amount in the config's currency unit, instead of a capacity in micro-units. */
        public Builder amount(double amount) {
            this.amount = amount;
            return this;
        }

        /** For spend: the share of the amount at which it warns (default 0.8). */
        public Builder warnAt(double warnAt) {
            this.warnAt = warnAt;
            return this;
        }

        /** daily_reset and calendar periods only. */
        public Builder resetAt(LocalTime resetAt) {
            this.resetAt = resetAt;
            return this;
        }

        /** daily_reset and calendar periods only. */
        public Builder zone(ZoneId zone) {
            this.zone = zone;
            return this;
        }

        public Builder level(ScopeLevel level) {
            this.level = Objects.requireNonNull(level, "level");
            return this;
        }

        /** Restricts the limit to one provider's calls; set for you on a provider's own limits. */
        public Builder provider(String provider) {
            this.provider = provider;
            return this;
        }

        public Builder models(List<String> models) {
            this.models = new ArrayList<>(Objects.requireNonNull(models, "models"));
            return this;
        }

        public Builder enforced(boolean enforced) {
            this.enforced = enforced;
            return this;
        }

        /** Token buckets: the most let through at once, at most the capacity (default: the capacity). */
        public Builder burst(long burst) {
            this.burstCount = burst;
            this.burstDuration = null;
            return this;
        }

        /** Token buckets: the most let through at once, as a duration of the rate ({@code 2s} of 600/min is 20). */
        public Builder burst(Duration burst) {
            this.burstDuration = Objects.requireNonNull(burst, "burst");
            this.burstCount = null;
            return this;
        }

        /** A provider's own limit: the period the provider documents enforcing its limits over, or null. */
        Builder providerBurst(Duration period) {
            this.providerBurst = period;
            return this;
        }

        public Builder shared(boolean shared) {
            this.shared = shared;
            return this;
        }

        Builder scopeValue(String scopeValue) {
            this.scopeValue = scopeValue;
            return this;
        }

        Builder mirrorsProvider(boolean mirrorsProvider) {
            this.mirrorsProvider = mirrorsProvider;
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public LimitConfig build() {
            LimitConfig l = new LimitConfig(this);
            Issues issues = new Issues();
            l.validate("", issues);
            issues.throwIfAny("limit");
            return l;
        }

        LimitConfig buildUnchecked() {
            return new LimitConfig(this);
        }
    }
}
