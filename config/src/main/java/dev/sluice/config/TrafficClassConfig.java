package dev.sluice.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A traffic class: one queue with its own deadline and depth, so interactive calls are never
 * stuck behind a batch job. Three always exist: {@link #DEFAULT}, {@link #INTERACTIVE} and
 * {@link #BATCH}; config entries with their names override them, other names add classes.
 */
public final class TrafficClassConfig {
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");

    /**
     * Calls with no class. Waits up to 60 s (never beyond the caller's own timeout) and, when
     * overloaded, lets the call through: adding the agent must never fail a call the SDK would
     * have completed on its own. Where Sluice knows the provider has no room the provider would
     * refuse the call too, so the governor answers it locally instead (see the README).
     */
    public static final TrafficClassConfig DEFAULT =
            builtIn("default", 5, Duration.ofSeconds(60), 10_000, OverloadAction.PASS_THROUGH);
    /** User-facing calls: a short wait, then a fast local rejection the caller can act on. */
    public static final TrafficClassConfig INTERACTIVE =
            builtIn("interactive", 10, Duration.ofMillis(300), 1_000, OverloadAction.REJECT);
    /** Background work: waits up to 20 minutes for capacity, deep queue. */
    public static final TrafficClassConfig BATCH =
            builtIn("batch", 1, Duration.ofMinutes(20), 100_000, OverloadAction.REJECT);

    private static final List<TrafficClassConfig> BUILT_INS = List.of(DEFAULT, INTERACTIVE, BATCH);

    private final String name;
    private final int priority;
    private final Duration maxWait;
    private final int maxQueueDepth;
    private final OverloadAction overloadAction;

    private TrafficClassConfig(Builder b) {
        this.name = b.name;
        this.priority = b.priority;
        this.maxWait = b.maxWait;
        this.maxQueueDepth = b.maxQueueDepth;
        this.overloadAction = b.overloadAction;
    }

    private static TrafficClassConfig builtIn(
            String name, int priority, Duration maxWait, int depth, OverloadAction action) {
        return new Builder()
                .name(name)
                .priority(priority)
                .maxWait(maxWait)
                .maxQueueDepth(depth)
                .overloadAction(action)
                .build();
    }

    /** The classes that always exist, in order: default, interactive, batch. */
    public static List<TrafficClassConfig> builtIns() {
        return BUILT_INS;
    }

    /** The built-in class with this name, or null. */
    public static TrafficClassConfig builtIn(String name) {
        for (TrafficClassConfig c : BUILT_INS) {
            if (c.name.equals(name)) {
                return c;
            }
        }
        return null;
    }

    /**
     * A builder for a class with this name: the built-in's settings when the name is a built-in,
     * else priority 1, max wait 60 s, depth 10000, reject on overload.
     */
    public static Builder builder(String name) {
        TrafficClassConfig builtIn = builtIn(name);
        return builtIn != null ? builtIn.toBuilder() : new Builder().name(name);
    }

    static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.priority = priority;
        b.maxWait = maxWait;
        b.maxQueueDepth = maxQueueDepth;
        b.overloadAction = overloadAction;
        return b;
    }

    public String name() {
        return name;
    }

    /** Higher goes first under strict scheduling; the relative weight under weighted scheduling. */
    public int priority() {
        return priority;
    }

    /** How long a call may wait for capacity before the overload action applies. */
    public Duration maxWait() {
        return maxWait;
    }

    /** Calls that may wait at once; the next one gets the overload action. */
    public int maxQueueDepth() {
        return maxQueueDepth;
    }

    public OverloadAction overloadAction() {
        return overloadAction;
    }

    public boolean isBuiltIn() {
        return builtIn(name) != null;
    }

    void validate(String path, Issues issues) {
        if (name == null) {
            issues.missing(Issues.join(path, "name"));
        } else if (!NAME.matcher(name).matches()) {
            issues.add(
                    Issues.join(path, "name"),
                    name,
                    Issues.render(name)
                            + " is not a valid name, use letters, digits and _ . - (starting with a letter or digit)");
        }
        RetryConfig.positive(path, "maxWait", maxWait, issues);
        issues.check(maxQueueDepth >= 1, Issues.join(path, "maxQueueDepth"), maxQueueDepth, ">= 1");
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TrafficClassConfig)) {
            return false;
        }
        TrafficClassConfig c = (TrafficClassConfig) o;
        return Objects.equals(name, c.name)
                && priority == c.priority
                && Objects.equals(maxWait, c.maxWait)
                && maxQueueDepth == c.maxQueueDepth
                && overloadAction == c.overloadAction;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, priority, maxWait, maxQueueDepth, overloadAction);
    }

    @Override
    public String toString() {
        return "TrafficClassConfig{" + name + ", priority=" + priority + ", maxWait=" + Issues.render(maxWait)
                + ", maxQueueDepth=" + maxQueueDepth + ", overloadAction=" + overloadAction + "}";
    }

    /** Builds a {@link TrafficClassConfig}; see {@link TrafficClassConfig#builder(String)} for the starting values. */
    public static final class Builder {
        String name;
        int priority = 1;
        Duration maxWait = Duration.ofSeconds(60);
        int maxQueueDepth = 10_000;
        OverloadAction overloadAction = OverloadAction.REJECT;

        private Builder() {}

        Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        public Builder maxWait(Duration maxWait) {
            this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
            return this;
        }

        public Builder maxQueueDepth(int maxQueueDepth) {
            this.maxQueueDepth = maxQueueDepth;
            return this;
        }

        public Builder overloadAction(OverloadAction overloadAction) {
            this.overloadAction = Objects.requireNonNull(overloadAction, "overloadAction");
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public TrafficClassConfig build() {
            TrafficClassConfig c = new TrafficClassConfig(this);
            Issues issues = new Issues();
            c.validate("", issues);
            issues.throwIfAny("traffic class " + name);
            return c;
        }

        TrafficClassConfig buildUnchecked() {
            return new TrafficClassConfig(this);
        }
    }
}
