package dev.sluice.core.jmx;

import java.util.List;

/**
 * {@code dev.sluice:type=Tenant,name=<tenant>}: one tenant's use, queue and standing; weight and
 * guaranteed share tunable live, and an emergency stop.
 */
public interface TenantMXBean {

    String getName();

    @Description("Whether the tenant is declared in the config (only those may hold a guaranteed share)")
    boolean isConfigured();

    @Description("Weight in fair sharing: a tenant of weight 3 gets 3x the turns of weight 1 when competing."
            + " Writable (> 0)")
    double getWeight();

    void setWeight(double weight);

    @Description("Guaranteed share of every limit shared between tenants, 0..1; shares sum to at most 1."
            + " Writable for configured tenants")
    double getGuaranteedShare();

    void setGuaranteedShare(double share);

    @Description("Paused by an operator: its calls are rejected with 'paused'")
    boolean isPaused();

    @Description("Requests admitted")
    long getAdmitted();

    @Description("Calls rejected, every reason")
    long getRejected();

    @Description("Calls waiting for admission now")
    int getQueued();

    @Description("Input tokens used, as settled")
    long getInputTokens();

    @Description("Output tokens used, as settled")
    long getOutputTokens();

    @Description("Input plus output tokens used, as settled")
    long getTotalTokens();

    @Description("Tokens reserved at admission (estimates)")
    long getReservedTokens();

    @Description("Tokens taken from the common pool beyond the tenant's guaranteed reserve")
    long getBorrowedTokens();

    @Description("Total time the tenant's calls waited for admission, in milliseconds")
    long getWaitedMillis();

    @Description("The tenant's own buckets (limits at level tenant, or declared under the tenant)")
    List<BucketRow> getBuckets();

    @Description("Emergency stop: rejects the tenant's calls with 'paused' until resumed")
    String pause();

    @Description("Lets the tenant's calls through again")
    String resume();
}
