package dev.sluice.core.jmx;

/**
 * The JMX view of a shared store, {@code dev.sluice:type=Store}: whether shared limits are in the
 * store or enforced locally at capacity / N, and how often this JVM talks to the store.
 */
public interface StoreMXBean {

    /** Where the shared state is, without credentials. */
    String getStore();

    /** {@code shared}, or {@code fallback (capacity/N)}. */
    String getMode();

    boolean isFallback();

    /** N of the fallback share. */
    int getInstances();

    /** Round trips to the store so far. */
    long getCalls();

    long getFallbacks();

    long getRecoveries();

    long getGrants();

    long getRefusals();

    double getLeaseChunk();

    /** The last failure talking to the store, or empty. */
    String getLastError();
}
