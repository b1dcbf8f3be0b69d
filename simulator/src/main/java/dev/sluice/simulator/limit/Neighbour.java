package dev.sluice.simulator.limit;

import java.util.Objects;

/**
 * A consumer the client under test cannot see (another service of the same organization with no
 * agent): it takes {@code share} of every organization-scoped limit of {@code organization},
 * steadily over time, straight from the buckets (no HTTP), and what it takes is reported to a
 * {@link Listener} so a test can compute what it leaves.
 *
 * @param organization the organization whose limits it shares
 * @param share the fraction of each limit's capacity it consumes, in (0, 1)
 */
public record Neighbour(String organization, double share) {

    public Neighbour {
        Objects.requireNonNull(organization, "organization");
        if (!(share > 0 && share < 1)) {
            throw new IllegalArgumentException("a neighbour's share must be in (0, 1): " + share);
        }
    }

    /** Told what a neighbour took from one limit between two instants (epoch nanoseconds). */
    @FunctionalInterface
    public interface Listener {
        /**
         * @param wanted what the neighbour tried to take (its share of the capacity over the span)
         * @param taken what it got (today always all it wanted: see {@code NeighbourMeter})
         */
        void used(
                Neighbour neighbour,
                dev.sluice.simulator.Limit limit,
                long fromNanos,
                long toNanos,
                long wanted,
                long taken);

        Listener NONE = (n, l, from, to, wanted, taken) -> {};
    }
}
