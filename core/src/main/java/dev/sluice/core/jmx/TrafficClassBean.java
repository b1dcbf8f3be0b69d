package dev.sluice.core.jmx;

import dev.sluice.core.GovernorStats;
import dev.sluice.core.schedule.TrafficClass;
import java.time.Duration;

/** The {@link TrafficClassMXBean} of one traffic class: the live object the scheduler reads. */
final class TrafficClassBean implements TrafficClassMXBean {

    private final SluiceMBeans beans;
    private final TrafficClass trafficClass;

    TrafficClassBean(SluiceMBeans beans, TrafficClass trafficClass) {
        this.beans = beans;
        this.trafficClass = trafficClass;
    }

    /** Null until the class saw a call: reading must not create counters. */
    private GovernorStats.ClassCounters counters() {
        return beans.governor().stats().trafficClasses().get(trafficClass.name());
    }

    @Override
    public String getName() {
        return trafficClass.name();
    }

    @Override
    public int getPriority() {
        return trafficClass.priority();
    }

    @Override
    public String getOverloadAction() {
        return trafficClass.overloadAction().configName();
    }

    @Override
    public long getMaxWaitMillis() {
        return trafficClass.maxWaitNanos() / 1_000_000;
    }

    @Override
    public void setMaxWaitMillis(long millis) {
        if (millis <= 0) {
            throw new IllegalArgumentException("maxWaitMillis must be > 0, was " + millis);
        }
        trafficClass.setMaxWait(Duration.ofMillis(millis));
        beans.changed();
    }

    @Override
    public int getMaxQueueDepth() {
        return trafficClass.maxQueueDepth();
    }

    @Override
    public void setMaxQueueDepth(int depth) {
        if (depth < 1) {
            throw new IllegalArgumentException("maxQueueDepth must be >= 1, was " + depth);
        }
        trafficClass.setMaxQueueDepth(depth);
        beans.changed();
    }

    @Override
    public int getQueueDepth() {
        Integer n = beans.view().now().queueDepthByClass.get(trafficClass.name());
        return n == null ? 0 : n;
    }

    private double waitMillis(double q) {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.waitPercentileNanos(q) / 1e6;
    }

    @Override
    public double getWaitP50Millis() {
        return waitMillis(0.50);
    }

    @Override
    public double getWaitP95Millis() {
        return waitMillis(0.95);
    }

    @Override
    public double getWaitP99Millis() {
        return waitMillis(0.99);
    }

    @Override
    public double getMaxObservedWaitMillis() {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.maxWaitNanos() / 1e6;
    }

    @Override
    public long getDeadlineExpirations() {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.deadlineExpirations();
    }

    @Override
    public long getQueued() {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.queued();
    }

    @Override
    public long getRejected() {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.rejected();
    }

    @Override
    public long getAdmittedAtOnce() {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.admittedAtOnce();
    }

    @Override
    public long getAdmittedAfterWaiting() {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.admittedAfterWaiting();
    }

    @Override
    public long getAbandoned() {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.abandoned();
    }

    @Override
    public long getPassedThrough() {
        GovernorStats.ClassCounters c = counters();
        return c == null ? 0 : c.passedThrough();
    }
}
