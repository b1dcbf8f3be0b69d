package dev.sluice.core.store;

/** A snapshot of what a store is doing, for logs, JMX and tests. Immutable. */
public final class StoreStatus {

    static final StoreStatus LOCAL = new StoreStatus("local", "local", false, 1, 0, 0, 0, 0, 0, 0, null);

    private final String store;
    private final String mode;
    private final boolean fallback;
    private final int instances;
    private final long calls;
    private final long fallbacks;
    private final long recoveries;
    private final long grants;
    private final long refusals;
    private final double leaseChunk;
    private final String lastError;

    StoreStatus(
            String store,
            String mode,
            boolean fallback,
            int instances,
            long calls,
            long fallbacks,
            long recoveries,
            long grants,
            long refusals,
            double leaseChunk,
            String lastError) {
        this.store = store;
        this.mode = mode;
        this.fallback = fallback;
        this.instances = instances;
        this.calls = calls;
        this.fallbacks = fallbacks;
        this.recoveries = recoveries;
        this.grants = grants;
        this.refusals = refusals;
        this.leaseChunk = leaseChunk;
        this.lastError = lastError;
    }

    /** {@code local}, or where the shared state is (e.g. {@code redis://10.0.0.5:6379}). */
    public String store() {
        return store;
    }

    /** {@code local}, {@code shared}, or {@code fallback (capacity/3)}. */
    public String mode() {
        return mode;
    }

    /** Whether shared limits are enforced locally at capacity / N because the store is unreachable. */
    public boolean isFallback() {
        return fallback;
    }

    /** The N of the fallback share: configured, or the instances alive at the last heartbeat. */
    public int instances() {
        return instances;
    }

    /** Round trips to the shared state so far. */
    public long calls() {
        return calls;
    }

    /** Times the store became unreachable and this JVM fell back to local limits. */
    public long fallbacks() {
        return fallbacks;
    }

    /** Times it came back. */
    public long recoveries() {
        return recoveries;
    }

    /** Grant groups the shared state granted (leases and waiting calls' reservations). */
    public long grants() {
        return grants;
    }

    /** Waiting calls' reservations the shared state refused for lack of room. */
    public long refusals() {
        return refusals;
    }

    public double leaseChunk() {
        return leaseChunk;
    }

    /** The last failure talking to the store, or null. */
    public String lastError() {
        return lastError;
    }

    @Override
    public String toString() {
        return "store=" + store + " mode=" + mode + " instances=" + instances + " calls=" + calls + " fallbacks="
                + fallbacks + " recoveries=" + recoveries + (lastError == null ? "" : " lastError=" + lastError);
    }
}
