package dev.sluice.simulator;

import java.time.Duration;
import java.util.Objects;

/**
 * One enforced limit: a dimension, a capacity per window, how it refills, whose traffic shares it,
 * and for token buckets how much may be spent at once.
 *
 * <p>{@code algorithm} and {@code scope} may be left null to take the profile's default (token
 * bucket for providers, fixed window for the gateway; the simulator's key scope). For
 * {@link Dimension#CONCURRENCY} the window is ignored.
 *
 * @param dimension what is counted
 * @param capacity how much per window (or how many in flight)
 * @param window the window; short ones (one second) make tests fast
 * @param algorithm refill algorithm, or null for the profile default
 * @param scope bucket sharing, or null for the simulator's key scope
 * @param burst token-bucket size; 0 means "equal to capacity"
 * @param name a label used in messages and the ledger (the gateway names buckets key_chat...)
 */
public record Limit(
        Dimension dimension,
        long capacity,
        Duration window,
        Algorithm algorithm,
        Scope scope,
        long burst,
        String name) {

    public Limit {
        Objects.requireNonNull(dimension, "dimension");
        Objects.requireNonNull(window, "window");
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        if (dimension != Dimension.CONCURRENCY && (window.isZero() || window.isNegative())) {
            throw new IllegalArgumentException("window must be positive: " + window);
        }
        if (burst < 0) {
            throw new IllegalArgumentException("burst must not be negative: " + burst);
        }
    }

    /** A limit of {@code capacity} per {@code window}, profile defaults for the rest. */
    public static Limit of(Dimension dimension, long capacity, Duration window) {
        return new Limit(dimension, capacity, window, null, null, 0, null);
    }

    /** Shorthand for a per-minute limit. */
    public static Limit perMinute(Dimension dimension, long capacity) {
        return of(dimension, capacity, Duration.ofMinutes(1));
    }

    /** At most {@code inFlight} requests at once, refused immediately beyond (no queue). */
    public static Limit concurrency(long inFlight) {
        return new Limit(Dimension.CONCURRENCY, inFlight, Duration.ZERO, null, null, 0, null);
    }

    public Limit algorithm(Algorithm value) {
        return new Limit(dimension, capacity, window, value, scope, burst, name);
    }

    public Limit fixedWindow() {
        return algorithm(Algorithm.FIXED_WINDOW);
    }

    public Limit tokenBucket() {
        return algorithm(Algorithm.TOKEN_BUCKET);
    }

    public Limit scope(Scope value) {
        return new Limit(dimension, capacity, window, algorithm, value, burst, name);
    }

    /** Token-bucket size: how much may be spent at once after an idle period. */
    public Limit burst(long value) {
        return new Limit(dimension, capacity, window, algorithm, scope, value, name);
    }

    public Limit named(String value) {
        return new Limit(dimension, capacity, window, algorithm, scope, burst, value);
    }

    /** The bucket size actually used: the burst if set, else the capacity. */
    public long effectiveBurst() {
        return burst == 0 ? capacity : burst;
    }

    /** Fills unset algorithm and scope from defaults; used when a simulator is built. */
    Limit withDefaults(Algorithm defaultAlgorithm, Scope defaultScope) {
        return new Limit(
                dimension,
                capacity,
                window,
                algorithm == null ? defaultAlgorithm : algorithm,
                scope == null ? defaultScope : scope,
                burst,
                name);
    }

    /** Names an unnamed limit after what it counts ("requests_per_1s"). */
    Limit withDefaultName() {
        return name == null ? named(defaultName()) : this;
    }

    private String defaultName() {
        String dim = dimension.name().toLowerCase(java.util.Locale.ROOT);
        return dimension == Dimension.CONCURRENCY ? dim : dim + "_per_" + Durations.compact(window);
    }

    /** A one-line description, as printed by the CLI. */
    public String describe() {
        if (dimension == Dimension.CONCURRENCY) {
            return String.format("%-22s %d in flight per %s", name, capacity, label(scope));
        }
        String shape = algorithm == Algorithm.FIXED_WINDOW ? "fixed window" : "token bucket, burst " + effectiveBurst();
        return String.format(
                "%-22s %d %s per %s per %s (%s)",
                name,
                capacity,
                dimension.name().toLowerCase(java.util.Locale.ROOT),
                Durations.compact(window),
                label(scope),
                shape);
    }

    private static String label(Scope scope) {
        return scope == null ? "key" : scope.name().toLowerCase(java.util.Locale.ROOT);
    }
}
