package dev.sluice.core.quota;

/**
 * What a bucket whose room lives in a store a fleet of JVMs shares knows of that store: it admits
 * from what this JVM leased, and a waiting call asks the store for more (see {@code
 * dev.sluice.core.store}). {@link Bucket#fleetRoom} gives it; a bucket whose room is this JVM's
 * alone has none. Used under the governor's lock.
 */
public interface FleetRoom {

    /** Whether a call short of room here waits for the store to grant it, rather than for time to pass. */
    boolean grants(long nowMillis);

    /**
     * What the store holds beyond this JVM's own room, as heard since {@code sinceNanos}: 0 while
     * the store is away (this JVM's share is all there is), {@link Long#MAX_VALUE} when it has not
     * said since.
     */
    long beyondOwn(long sinceNanos, long nowNanos, long nowMillis);

    /** The room fleet-wide as last heard: this JVM's own as counted, plus what the store last said it holds. */
    long asCounted(long nowNanos, long nowMillis);
}
