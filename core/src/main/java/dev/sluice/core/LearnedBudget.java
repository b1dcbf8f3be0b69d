package dev.sluice.core;

import dev.sluice.config.Dimension;

/**
 * A budget a provider announced in an answer's rate-limit headers, translated by its adapter:
 * what the limit is, how much of it was left when the provider counted the call, and its window.
 */
public final class LearnedBudget {
    final String name;
    final Dimension dimension;
    /** The announced limit per window, or -1 when the provider told only what remains (Azure). */
    final long limit;
    /** What was left, or -1 when the provider did not say. */
    final long remaining;

    final long windowMillis;

    public LearnedBudget(String name, Dimension dimension, long limit, long remaining, long windowMillis) {
        this.name = name;
        this.dimension = dimension;
        this.limit = limit;
        this.remaining = remaining;
        this.windowMillis = windowMillis;
    }
}
