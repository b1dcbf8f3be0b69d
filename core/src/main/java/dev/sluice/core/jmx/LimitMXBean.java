package dev.sluice.core.jmx;

import java.util.List;
import java.util.Map;

/**
 * {@code dev.sluice:type=Limit,name=<id>}: one limit, configured or learned from a provider's
 * rate-limit headers. A limit at a scope level (tenant, api_key, model...) has one bucket per value:
 * the figures here are over all of them (the tightest, the total or the highest, as each says).
 */
public interface LimitMXBean {

    @Description("The limit's id, as in the config and in rejections")
    String getId();

    @Description(
            "requests, input_tokens, output_tokens, total_tokens, concurrency or spend (micro-units of the config's currency)")
    String getDimension();

    @Description("The window (1m, 10s, 1d) or calendar period (hour, day, week, month); empty for concurrency")
    String getWindow();

    @Description("token_bucket, fixed_window, daily_reset, calendar or concurrency")
    String getAlgorithm();

    @Description("The scope level that gets one bucket per value: organization, tenant, team, api_key,"
            + " model_profile, provider_deployment")
    String getLevel();

    @Description("The provider the limit applies to; empty for every provider")
    String getProvider();

    @Description("configured, or learned (from the provider's rate-limit headers)")
    String getSource();

    @Description("Whether it is charged the way the provider charges, mirroring a provider limit")
    boolean isMirrorsProvider();

    @Description("Capacity of each bucket per window. Writable for configured limits (> 0); applies to the next"
            + " admission")
    long getCapacity();

    void setCapacity(long capacity);

    @Description("Token buckets: the most let through at once, at most the capacity (the capacity unless config"
            + " sets burst, or the provider documents a shorter period); 0 for windows and concurrency. Writable for"
            + " configured token buckets (0 = the capacity); a bucket holding more keeps only the new burst")
    long getBurst();

    void setBurst(long burst);

    @Description("Whether it delays and rejects calls; an unenforced limit is counted and shown only. Writable")
    boolean isEnforced();

    void setEnforced(boolean enforced);

    @Description("Room for new reservations now in the tightest bucket (negative after usage beyond estimates)")
    long getAvailable();

    @Description("Held by calls in flight and not yet settled, over all buckets")
    long getReserved();

    @Description("Calls admitted through this limit and not finished")
    long getInFlight();

    @Description("Share of the capacity in use in the busiest bucket, 0..1")
    double getUtilisation();

    @Description("Buckets alive now (one per scope value seen recently)")
    int getBucketCount();

    @Description("The busiest buckets (at most 50): scope, capacity, available, reserved, utilisation")
    List<BucketRow> getBuckets();

    @Description("The limit the provider last announced in its headers for this limit; -1 when unknown")
    long getProviderLimit();

    @Description("What the provider last said remained; -1 when unknown")
    long getProviderRemaining();

    @Description("Calls this limit caused to be rejected, every reason")
    long getRejections();

    @Description("Calls this limit caused to be rejected, by gateway decision")
    Map<String, Long> getRejectionsByReason();
}
