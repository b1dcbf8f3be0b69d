package dev.sluice.simulator.ledger;

import dev.sluice.simulator.Dimension;
import java.time.Instant;

/**
 * What a neighbour (a consumer of the organization the client under test cannot see) took from one
 * limit over one span, kept apart from the {@link Exchange}s: it never went through HTTP.
 *
 * @param organization the organization whose limit it was
 * @param limit the limit's name
 * @param dimension what the limit counts
 * @param from the start of the span
 * @param to its end
 * @param wanted the neighbour's share of the capacity over the span
 * @param taken what it got (less than wanted when the bucket was empty)
 */
public record NeighbourUse(
        String organization, String limit, Dimension dimension, Instant from, Instant to, long wanted, long taken) {}
