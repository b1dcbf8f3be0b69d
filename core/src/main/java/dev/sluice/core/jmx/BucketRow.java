package dev.sluice.core.jmx;

import javax.management.openmbean.CompositeData;

/**
 * One bucket of a limit at the moment of reading: a row of a limit's or a tenant's bucket table
 * (a {@code CompositeData} on the wire). Immutable.
 */
public final class BucketRow {

    private final String limitId;
    private final String scope;
    private final String dimension;
    private final long capacity;
    private final long available;
    private final long reserved;
    private final double utilisation;
    private final boolean enforced;

    public BucketRow(
            String limitId,
            String scope,
            String dimension,
            long capacity,
            long available,
            long reserved,
            double utilisation,
            boolean enforced) {
        this.limitId = limitId;
        this.scope = scope;
        this.dimension = dimension;
        this.capacity = capacity;
        this.available = available;
        this.reserved = reserved;
        this.utilisation = utilisation;
        this.enforced = enforced;
    }

    /** Rebuilds a row read from a JMX connection (what MXBean proxies call). */
    public static BucketRow from(CompositeData d) {
        return new BucketRow(
                (String) d.get("limitId"),
                (String) d.get("scope"),
                (String) d.get("dimension"),
                (Long) d.get("capacity"),
                (Long) d.get("available"),
                (Long) d.get("reserved"),
                (Double) d.get("utilisation"),
                (Boolean) d.get("enforced"));
    }

    public String getLimitId() {
        return limitId;
    }

    /** E.g. {@code sluice/tenant=search}, {@code openai/k_3f9a1c/gpt-4o-mini}. */
    public String getScope() {
        return scope;
    }

    public String getDimension() {
        return dimension;
    }

    public long getCapacity() {
        return capacity;
    }

    /** Room for new reservations now; negative after usage beyond estimates. */
    public long getAvailable() {
        return available;
    }

    /** Held by calls in flight and not yet settled. */
    public long getReserved() {
        return reserved;
    }

    /** Share of the capacity in use, 0..1 (above 1 after usage beyond estimates). */
    public double getUtilisation() {
        return utilisation;
    }

    public boolean isEnforced() {
        return enforced;
    }
}
