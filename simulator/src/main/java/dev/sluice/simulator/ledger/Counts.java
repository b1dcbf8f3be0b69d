package dev.sluice.simulator.ledger;

import java.util.Collection;

/**
 * Totals over a set of exchanges.
 *
 * @param arrivals every request seen
 * @param admitted requests that passed the limits (including those later reset)
 * @param rejected 429 from a limit
 * @param overloaded 503/529
 * @param resets connections reset before a response
 * @param errors other error answers
 * @param inputTokens input tokens of admitted requests
 * @param outputTokens output tokens of admitted requests
 */
public record Counts(
        long arrivals,
        long admitted,
        long rejected,
        long overloaded,
        long resets,
        long errors,
        long inputTokens,
        long outputTokens) {

    /** Totals of the given exchanges. */
    public static Counts of(Collection<Exchange> exchanges) {
        long admitted = 0;
        long rejected = 0;
        long overloaded = 0;
        long resets = 0;
        long errors = 0;
        long in = 0;
        long out = 0;
        for (Exchange e : exchanges) {
            if (e.admitted()) {
                admitted++;
                in += e.inputTokens();
                out += e.outputTokens();
            }
            switch (e.outcome()) {
                case REJECTED:
                    rejected++;
                    break;
                case OVERLOADED:
                    overloaded++;
                    break;
                case RESET:
                    resets++;
                    break;
                case ERROR:
                    errors++;
                    break;
                default:
                    break;
            }
        }
        return new Counts(exchanges.size(), admitted, rejected, overloaded, resets, errors, in, out);
    }
}
