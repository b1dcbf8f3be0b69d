package dev.sluice.simulator.ledger;

import java.time.Instant;

/**
 * One arrival as the simulator saw it.
 *
 * @param seq arrival order, from 1
 * @param arrivedAt when the request was read
 * @param admittedAt when it passed the limits, or null
 * @param completedAt when its response (or stream) ended, or null while in flight
 * @param apiKey the API key as sent ("" when none)
 * @param organization the organization the limits used
 * @param tenant the tenant header's value, or null
 * @param callId the logical call id header's value, or null
 * @param model the model named by the request
 * @param path the request path
 * @param stream whether a stream was asked for
 * @param status the HTTP status answered (0 for a reset connection)
 * @param outcome the kind of answer
 * @param refusedBy the name of the limit that refused, or null
 * @param inputTokens input tokens estimated at admission (uncached + cache creation + cache read)
 * @param outputTokens output tokens generated (0 unless admitted)
 * @param fault the fault injected, by wire name, or null
 */
public record Exchange(
        long seq,
        Instant arrivedAt,
        Instant admittedAt,
        Instant completedAt,
        String apiKey,
        String organization,
        String tenant,
        String callId,
        String model,
        String path,
        boolean stream,
        int status,
        Outcome outcome,
        String refusedBy,
        long inputTokens,
        long outputTokens,
        String fault) {

    public boolean admitted() {
        return admittedAt != null;
    }
}
