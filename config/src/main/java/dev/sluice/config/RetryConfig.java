package dev.sluice.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How Sluice retries calls it owns (the SDKs' own retry loops are neutralised). A retry is
 * allowed only within the per-call {@link #maxAttempts()}, the caller's deadline, and a retry
 * budget per provider scope of {@code budgetRatio x recent first attempts + budgetFloorPerSecond},
 * so a provider outage does not turn into a retry storm.
 */
public final class RetryConfig {
    private static final RetryConfig DEFAULTS = builder().build();

    private final int maxAttempts;
    private final double budgetRatio;
    private final double budgetFloorPerSecond;
    private final Duration budgetWindow;
    private final Duration baseBackoff;
    private final Duration maxBackoff;
    private final double hintJitter;
    private final Duration maxHintWait;

    private RetryConfig(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.budgetRatio = b.budgetRatio;
        this.budgetFloorPerSecond = b.budgetFloorPerSecond;
        this.budgetWindow = b.budgetWindow;
        this.baseBackoff = b.baseBackoff;
        this.maxBackoff = b.maxBackoff;
        this.hintJitter = b.hintJitter;
        this.maxHintWait = b.maxHintWait;
    }

    /** 3 attempts, budget 20% + 1/s over 10 s, backoff 500 ms to 30 s, hint jitter 20%, hints up to 60 s. */
    public static RetryConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        ConfigSchema.RETRY.copy(this, b);
        return b;
    }

    /** Attempts per call including the first (3 = the first plus 2 retries, the SDKs' own default). */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** Retries allowed as a fraction of recent first attempts, per provider scope. */
    public double budgetRatio() {
        return budgetRatio;
    }

    /** Retries per second always allowed, so low-traffic scopes can still retry. */
    public double budgetFloorPerSecond() {
        return budgetFloorPerSecond;
    }

    /** How far back "recent first attempts" reaches. */
    public Duration budgetWindow() {
        return budgetWindow;
    }

    /** The first backoff when the provider gives no wait hint; doubles per attempt, with full jitter. */
    public Duration baseBackoff() {
        return baseBackoff;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** A provider's wait hint is a lower bound; up to this fraction of it is added so callers do not return in lockstep. */
    public double hintJitter() {
        return hintJitter;
    }

    /** A wait hint longer than this is not waited for: the provider's answer goes back to the caller. */
    public Duration maxHintWait() {
        return maxHintWait;
    }

    void validate(String path, Issues issues) {
        ConfigSchema.RETRY.validate(this, path, issues);
    }

    /** maxBackoff >= baseBackoff, once both are valid on their own. */
    static void checkBackoffOrder(RetryConfig r, String maxBackoffPath, Issues issues) {
        Duration base = r.baseBackoff;
        Duration max = r.maxBackoff;
        if (base != null && max != null && !max.isNegative() && !max.isZero()) {
            issues.check(
                    max.compareTo(base) >= 0, maxBackoffPath, max, ">= baseBackoff (" + Durations.format(base) + ")");
        }
    }

    static void positive(String path, String name, Duration d, Issues issues) {
        if (d == null) {
            issues.missing(Issues.join(path, name));
        } else {
            issues.check(!d.isNegative() && !d.isZero(), Issues.join(path, name), d, "> 0");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryConfig && ConfigSchema.RETRY.sameValues(this, (RetryConfig) o);
    }

    @Override
    public int hashCode() {
        return ConfigSchema.RETRY.hashValues(this);
    }

    @Override
    public String toString() {
        return "RetryConfig{maxAttempts=" + maxAttempts + ", budgetRatio=" + Issues.number(budgetRatio)
                + ", budgetFloorPerSecond=" + Issues.number(budgetFloorPerSecond) + ", budgetWindow="
                + Issues.render(budgetWindow)
                + ", baseBackoff=" + Issues.render(baseBackoff) + ", maxBackoff=" + Issues.render(maxBackoff)
                + ", hintJitter=" + Issues.number(hintJitter) + ", maxHintWait=" + Issues.render(maxHintWait) + "}";
    }

    /** Builds a {@link RetryConfig}; starts from the defaults. */
    public static final class Builder {
        // Defaults, ranges and docs: ConfigSchema.RETRY.
        int maxAttempts;
        double budgetRatio;
        double budgetFloorPerSecond;
        Duration budgetWindow;
        Duration baseBackoff;
        Duration maxBackoff;
        double hintJitter;
        Duration maxHintWait;

        private Builder() {
            ConfigSchema.RETRY.applyDefaults(this);
        }

        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        public Builder budgetRatio(double budgetRatio) {
            this.budgetRatio = budgetRatio;
            return this;
        }

        public Builder budgetFloorPerSecond(double budgetFloorPerSecond) {
            this.budgetFloorPerSecond = budgetFloorPerSecond;
            return this;
        }

        public Builder budgetWindow(Duration budgetWindow) {
            this.budgetWindow = Objects.requireNonNull(budgetWindow, "budgetWindow");
            return this;
        }

        public Builder baseBackoff(Duration baseBackoff) {
            this.baseBackoff = Objects.requireNonNull(baseBackoff, "baseBackoff");
            return this;
        }

        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
            return this;
        }

        public Builder hintJitter(double hintJitter) {
            this.hintJitter = hintJitter;
            return this;
        }

        public Builder maxHintWait(Duration maxHintWait) {
            this.maxHintWait = Objects.requireNonNull(maxHintWait, "maxHintWait");
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public RetryConfig build() {
            RetryConfig r = new RetryConfig(this);
            Issues issues = new Issues();
            r.validate("", issues);
            issues.throwIfAny("retry config");
            return r;
        }

        RetryConfig buildUnchecked() {
            return new RetryConfig(this);
        }
    }
}
