package dev.sluice.config;

import java.time.Duration;
import java.util.Objects;

/**
 * A provider's ramp: how fast the rate of calls Sluice admits to it may grow. Either by a factor
 * per interval from its recent rate ({@code growth: 1.5, interval: 1m}: at most x1.5 a minute), or
 * on a schedule from a share of the provider's requests limit to all of it ({@code startShare: 0.1,
 * over: 2h}, linearly). While a health threshold is crossed (the share of the provider's answers
 * that are 429s, the 95th percentile of queue waits or of the provider's answer time) the ramp
 * holds, or steps back. Immutable.
 */
public final class RampConfig {
    static final double DEFAULT_GROWTH = 1.5;
    static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
    static final double DEFAULT_FLOOR = 1;
    static final double DEFAULT_REJECTED_SHARE = 0.05;

    private final boolean enabled;
    private final Double growth;
    private final Duration interval;
    private final Double floor;
    private final Double startShare;
    private final Duration over;
    private final double rejectedShare;
    private final Duration queueWaitP95;
    private final Duration latencyP95;
    private final RampAction onTrip;
    private final boolean builtIn;

    private RampConfig(Builder b) {
        this.enabled = b.enabled;
        this.growth = b.growth;
        this.interval = b.interval;
        this.floor = b.floor;
        this.startShare = b.startShare;
        this.over = b.over;
        this.rejectedShare = b.rejectedShare;
        this.queueWaitP95 = b.queueWaitP95;
        this.latencyP95 = b.latencyP95;
        this.onTrip = b.onTrip;
        this.builtIn = b.builtIn;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The growth limit a provider of this kind gets when its config declares no ramp, or null:
     * OpenAI answers 429 {@code slow_down} when traffic grows too fast, and Anthropic documents
     * acceleration limits on sharp increases; neither gives a figure, so x2 a minute above half
     * the provider's requests limit, stepping back while over 2 % of answers are 429s. Off for
     * the kinds that document none.
     */
    static RampConfig builtIn(ProviderKind kind, double requestsPerSecond) {
        if ((kind != ProviderKind.OPENAI && kind != ProviderKind.ANTHROPIC) || !(requestsPerSecond > 0)) {
            return null;
        }
        Builder b = builder()
                .growth(2)
                .interval(Duration.ofMinutes(1))
                .floor(requestsPerSecond / 2)
                .rejectedShare(0.02)
                .onTrip(RampAction.STEP_BACK);
        b.builtIn = true;
        return b.build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.enabled = enabled;
        b.growth = growth;
        b.interval = interval;
        b.floor = floor;
        b.startShare = startShare;
        b.over = over;
        b.rejectedShare = rejectedShare;
        b.queueWaitP95 = queueWaitP95;
        b.latencyP95 = latencyP95;
        b.onTrip = onTrip;
        b.builtIn = builtIn;
        return b;
    }

    /** False for {@code enabled: false}: no ramp, not even the kind's built-in one. */
    public boolean enabled() {
        return enabled;
    }

    /** True when the ramp follows a schedule (a start share rising to 100 %) rather than a growth factor. */
    public boolean scheduled() {
        return startShare != null;
    }

    /** The most the admitted rate may grow per {@link #interval()} (growth ramps; default 1.5). */
    public double growth() {
        return growth == null ? DEFAULT_GROWTH : growth;
    }

    /** The interval growth is counted over, and health is measured over (default 1 minute). */
    public Duration interval() {
        return interval == null ? DEFAULT_INTERVAL : interval;
    }

    /** Calls a second the ramp always admits, whatever the recent rate (default 1). */
    public double floor() {
        return floor == null ? DEFAULT_FLOOR : floor;
    }

    /** Schedules: the share of the provider's requests limit the ramp starts at; null for growth ramps. */
    public Double startShare() {
        return startShare;
    }

    /** Schedules: how long the share takes to rise from the start share to 100 %. */
    public Duration over() {
        return over;
    }

    /** Above this share of the provider's answers being 429s over an interval the ramp trips (default 0.05). */
    public double rejectedShare() {
        return rejectedShare;
    }

    /** Above this 95th percentile of the provider's calls' queue waits the ramp trips; null: not watched. */
    public Duration queueWaitP95() {
        return queueWaitP95;
    }

    /** Above this 95th percentile of the provider's answer time the ramp trips; null: not watched. */
    public Duration latencyP95() {
        return latencyP95;
    }

    /** What the ramp does while tripped (default hold). */
    public RampAction onTrip() {
        return onTrip;
    }

    /** True for a kind's built-in ramp (see {@link #builtIn}). */
    public boolean isBuiltIn() {
        return builtIn;
    }

    void validate(String path, Issues issues, boolean hasRequestsLimit) {
        if (growth != null) {
            issues.check(growth > 1 && !growth.isInfinite(), Issues.join(path, "growth"), growth, "> 1");
            if (startShare != null) {
                issues.add(
                        Issues.join(path, "growth"),
                        growth,
                        "give growth (a factor per interval) or startShare (a schedule), not both");
            }
        }
        if (interval != null) {
            RetryConfig.positive(path, "interval", interval, issues);
        }
        if (floor != null) {
            issues.check(floor > 0 && !floor.isInfinite(), Issues.join(path, "floor"), floor, "> 0 (calls a second)");
        }
        if (startShare != null) {
            issues.check(
                    startShare > 0 && startShare < 1,
                    Issues.join(path, "startShare"),
                    startShare,
                    "between 0 and 1 (both excluded)");
            RetryConfig.positive(path, "over", over, issues);
            if (!hasRequestsLimit) {
                issues.add(
                        Issues.join(path, "startShare"),
                        startShare,
                        "a schedule ramps a share of the provider's requests limit: declare one under its limits");
            }
        } else if (over != null) {
            issues.add(Issues.join(path, "over"), over, "only allowed with startShare (a schedule)");
        }
        issues.check(
                rejectedShare > 0 && rejectedShare <= 1,
                Issues.join(path, "rejectedShare"),
                rejectedShare,
                "between 0 (excluded) and 1");
        if (queueWaitP95 != null) {
            RetryConfig.positive(path, "queueWaitP95", queueWaitP95, issues);
        }
        if (latencyP95 != null) {
            RetryConfig.positive(path, "latencyP95", latencyP95, issues);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RampConfig)) {
            return false;
        }
        RampConfig r = (RampConfig) o;
        return enabled == r.enabled
                && Objects.equals(growth, r.growth)
                && Objects.equals(interval, r.interval)
                && Objects.equals(floor, r.floor)
                && Objects.equals(startShare, r.startShare)
                && Objects.equals(over, r.over)
                && rejectedShare == r.rejectedShare
                && Objects.equals(queueWaitP95, r.queueWaitP95)
                && Objects.equals(latencyP95, r.latencyP95)
                && onTrip == r.onTrip
                && builtIn == r.builtIn;
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, growth, interval, floor, startShare, over, rejectedShare, onTrip);
    }

    @Override
    public String toString() {
        if (!enabled) {
            return "RampConfig{off}";
        }
        return "RampConfig{"
                + (scheduled()
                        ? "from " + startShare + " over " + Durations.format(over)
                        : "x" + growth() + " per " + Durations.format(interval()))
                + ", floor " + floor() + "/s, trips at 429 share " + rejectedShare
                + (queueWaitP95 != null ? ", queue wait p95 " + Durations.format(queueWaitP95) : "")
                + (latencyP95 != null ? ", latency p95 " + Durations.format(latencyP95) : "")
                + ", then " + onTrip + (builtIn ? ", built in" : "") + "}";
    }

    /** Builds a {@link RampConfig}; every field has a default. */
    public static final class Builder {
        boolean enabled = true;
        Double growth;
        Duration interval;
        Double floor;
        Double startShare;
        Duration over;
        double rejectedShare = DEFAULT_REJECTED_SHARE;
        Duration queueWaitP95;
        Duration latencyP95;
        RampAction onTrip = RampAction.HOLD;
        boolean builtIn;

        private Builder() {}

        public Builder enabled(boolean v) {
            this.enabled = v;
            return this;
        }

        public Builder growth(double v) {
            this.growth = v;
            return this;
        }

        public Builder interval(Duration v) {
            this.interval = v;
            return this;
        }

        public Builder floor(double v) {
            this.floor = v;
            return this;
        }

        /** A schedule from this share of the provider's requests limit to all of it, {@link #over}. */
        public Builder startShare(double v) {
            this.startShare = v;
            return this;
        }

        public Builder over(Duration v) {
            this.over = v;
            return this;
        }

        public Builder rejectedShare(double v) {
            this.rejectedShare = v;
            return this;
        }

        public Builder queueWaitP95(Duration v) {
            this.queueWaitP95 = v;
            return this;
        }

        public Builder latencyP95(Duration v) {
            this.latencyP95 = v;
            return this;
        }

        public Builder onTrip(RampAction v) {
            this.onTrip = Objects.requireNonNull(v, "onTrip");
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public RampConfig build() {
            RampConfig r = new RampConfig(this);
            Issues issues = new Issues();
            r.validate("", issues, true);
            issues.throwIfAny("ramp");
            return r;
        }

        RampConfig buildUnchecked() {
            return new RampConfig(this);
        }
    }
}
