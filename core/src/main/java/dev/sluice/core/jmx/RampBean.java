package dev.sluice.core.jmx;

import dev.sluice.config.RampAction;
import dev.sluice.core.quota.Ramp;

/** The {@link RampMXBean} of one provider's ramp: reads and tunes the live ramp. */
final class RampBean implements RampMXBean {

    private final Ramp ramp;

    RampBean(Ramp ramp) {
        this.ramp = ramp;
    }

    @Override
    public String getProvider() {
        return ramp.provider();
    }

    @Override
    public String getState() {
        return ramp.state().wireName();
    }

    @Override
    public String getKind() {
        return ramp.share() < 0 ? "growth" : "schedule";
    }

    @Override
    public double getCeilingPerSecond() {
        return ramp.ceilingPerSecond();
    }

    @Override
    public double getRecentPerSecond() {
        return ramp.recentPerSecond();
    }

    @Override
    public double getShare() {
        return ramp.share();
    }

    @Override
    public long getIntervalMillis() {
        return ramp.interval().toMillis();
    }

    @Override
    public double getGrowth() {
        return ramp.growth();
    }

    @Override
    public void setGrowth(double growth) {
        ramp.setGrowth(growth);
    }

    @Override
    public double getFloor() {
        return ramp.floor();
    }

    @Override
    public void setFloor(double floor) {
        ramp.setFloor(floor);
    }

    @Override
    public double getRejectedShareThreshold() {
        return ramp.rejectedShareThreshold();
    }

    @Override
    public void setRejectedShareThreshold(double share) {
        ramp.setRejectedShareThreshold(share);
    }

    @Override
    public long getQueueWaitP95ThresholdMillis() {
        return ramp.queueWaitP95ThresholdMillis();
    }

    @Override
    public void setQueueWaitP95ThresholdMillis(long millis) {
        ramp.setQueueWaitP95ThresholdMillis(millis);
    }

    @Override
    public long getLatencyP95ThresholdMillis() {
        return ramp.latencyP95ThresholdMillis();
    }

    @Override
    public void setLatencyP95ThresholdMillis(long millis) {
        ramp.setLatencyP95ThresholdMillis(millis);
    }

    @Override
    public String getOnTrip() {
        return ramp.onTrip().configName();
    }

    @Override
    public void setOnTrip(String action) {
        RampAction a = RampAction.fromConfigName(action);
        if (a == null) {
            throw new IllegalArgumentException("onTrip must be hold or step_back, was " + action);
        }
        ramp.setOnTrip(a);
    }

    @Override
    public double getRejectedShare() {
        return ramp.observedRejectedShare();
    }

    @Override
    public double getQueueWaitP95Millis() {
        return ramp.observedQueueWaitP95Millis();
    }

    @Override
    public double getLatencyP95Millis() {
        return ramp.observedLatencyP95Millis();
    }

    @Override
    public String getTrippedBy() {
        return ramp.trippedBy();
    }

    @Override
    public long getTrips() {
        return ramp.trips();
    }
}
