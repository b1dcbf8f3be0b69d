package dev.sluice.core.store;

/**
 * The shared state behind a {@linkplain QuotaStore#shared shared store}: applies one
 * {@link SyncRequest} atomically in one round trip. Called by the store's own thread only, never
 * under the governor's lock.
 */
public interface FleetBackend extends AutoCloseable {

    /**
     * Applies the request: announces this instance alive, applies returns, debits and concurrency
     * holdings, then grants each group all-or-none.
     *
     * @throws Exception when the backend is unreachable, too slow (the configured timeout) or
     *     answers with an error: the store falls back to local limits
     */
    SyncReply sync(SyncRequest request) throws Exception;

    /** Round trips made so far (for the figure Redis calls per admission). */
    long calls();

    /** Where it is, safe to log (no password). */
    String describe();

    @Override
    void close();
}
