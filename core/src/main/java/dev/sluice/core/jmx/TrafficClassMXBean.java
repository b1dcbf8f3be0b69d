package dev.sluice.core.jmx;

/**
 * {@code dev.sluice:type=TrafficClass,name=<class>}: one traffic class's queue, waits and deadlines;
 * max wait and depth tunable live.
 */
public interface TrafficClassMXBean {

    String getName();

    @Description("Higher goes first (strict scheduling) or gets more turns (weighted)")
    int getPriority();

    @Description("What happens to calls that do not fit: reject or pass_through")
    String getOverloadAction();

    @Description("How long a call may wait for admission, in milliseconds (never beyond the caller's own"
            + " timeout). Writable (> 0)")
    long getMaxWaitMillis();

    void setMaxWaitMillis(long millis);

    @Description("How many calls may wait; the next is rejected with queue_full. Writable (>= 1)")
    int getMaxQueueDepth();

    void setMaxQueueDepth(int depth);

    @Description("Calls waiting now")
    int getQueueDepth();

    @Description("Median admission wait over the class's admitted calls, in milliseconds")
    double getWaitP50Millis();

    @Description("95th percentile admission wait, in milliseconds")
    double getWaitP95Millis();

    @Description("99th percentile admission wait, in milliseconds")
    double getWaitP99Millis();

    @Description("Longest admission wait seen, in milliseconds")
    double getMaxObservedWaitMillis();

    @Description("Calls whose max wait ran out in the queue (rejected with queue_deadline_exceeded)")
    long getDeadlineExpirations();

    @Description("Calls that had to wait in the queue")
    long getQueued();

    @Description("Calls rejected, every reason")
    long getRejected();

    @Description("Calls admitted without waiting")
    long getAdmittedAtOnce();

    @Description("Calls admitted after waiting")
    long getAdmittedAfterWaiting();

    @Description("Calls whose caller gave up while waiting (interrupted, cancelled)")
    long getAbandoned();

    @Description("Calls let through ungoverned by overload action pass_through")
    long getPassedThrough();
}
