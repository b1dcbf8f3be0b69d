package dev.sluice.core.schedule;

/** What a class queue needs to know about a waiting call to share capacity fairly. */
public interface QueuedCall {

    /** The tenant the call is counted for in fair sharing. */
    String tenant();

    /** What the call costs in the currency of fairness (tokens, or 1 for token-less calls). */
    long cost();
}
