package dev.sluice.core.jmx;

/**
 * {@code dev.sluice:type=Ramp,name=<provider>}: how fast the rate of calls admitted to a provider
 * may grow, where its ramp stands, and the health thresholds that hold it or step it back.
 */
public interface RampMXBean {

    @Description("The provider the ramp paces")
    String getProvider();

    @Description("watching (a built-in ramp's first interval: it paces nothing yet), steady (following the recent"
            + " rate), ramping, holding, stepping_back, done (a schedule at 100 %)")
    String getState();

    @Description("growth (a factor per interval) or schedule (a start share rising to 100 %)")
    String getKind();

    @Description("Most calls a second the ramp admits now; -1 while it watches")
    double getCeilingPerSecond();

    @Description("Calls a second admitted over the last interval")
    double getRecentPerSecond();

    @Description("Schedules: the share of the provider's requests limit reached, 0..1; -1 for growth ramps")
    double getShare();

    @Description("The interval growth is counted and health measured over, in milliseconds")
    long getIntervalMillis();

    @Description("Most the admitted rate grows per interval (> 1). Writable")
    double getGrowth();

    void setGrowth(double growth);

    @Description("Calls a second the ramp always admits (> 0). Writable")
    double getFloor();

    void setFloor(double floor);

    @Description(
            "Share of the provider's answers being 429s over an interval above which the ramp trips (0..1]. Writable")
    double getRejectedShareThreshold();

    void setRejectedShareThreshold(double share);

    @Description("95th percentile of queue waits (not caused by the ramp) above which it trips, ms; 0: not watched."
            + " Writable")
    long getQueueWaitP95ThresholdMillis();

    void setQueueWaitP95ThresholdMillis(long millis);

    @Description(
            "95th percentile of the provider's answer time above which the ramp trips, ms; 0: not watched. Writable")
    long getLatencyP95ThresholdMillis();

    void setLatencyP95ThresholdMillis(long millis);

    @Description("What the ramp does while tripped: hold or step_back. Writable")
    String getOnTrip();

    void setOnTrip(String action);

    @Description("Share of the provider's answers that were 429s over the last interval")
    double getRejectedShare();

    @Description("95th percentile of queue waits not caused by the ramp over the last interval, ms; -1 with too few")
    double getQueueWaitP95Millis();

    @Description("95th percentile of the provider's answer time over the last interval, ms; -1 with too few")
    double getLatencyP95Millis();

    @Description("The threshold the last interval crossed (rejectedShare, latencyP95, queueWaitP95); empty when none")
    String getTrippedBy();

    @Description("Times a threshold was crossed after none was")
    long getTrips();
}
