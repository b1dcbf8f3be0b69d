package dev.sluice.core.telemetry;

import java.time.Instant;

/** One decision the governor made, explained for an operator. Immutable. */
public final class Decision {

    private final long epochMillis;
    private final String outcome;
    private final String provider;
    private final String model;
    private final String tenant;
    private final String trafficClass;
    private final long waitedMillis;
    private final String explanation;

    public Decision(
            long epochMillis,
            String outcome,
            String provider,
            String model,
            String tenant,
            String trafficClass,
            long waitedMillis,
            String explanation) {
        this.epochMillis = epochMillis;
        this.outcome = outcome;
        this.provider = provider;
        this.model = model;
        this.tenant = tenant;
        this.trafficClass = trafficClass;
        this.waitedMillis = waitedMillis;
        this.explanation = explanation;
    }

    public long epochMillis() {
        return epochMillis;
    }

    /** {@code admitted}, a gateway decision such as {@code rejected_locally}, or a provider answer. */
    public String outcome() {
        return outcome;
    }

    public String provider() {
        return provider;
    }

    public String model() {
        return model;
    }

    public String tenant() {
        return tenant;
    }

    public String trafficClass() {
        return trafficClass;
    }

    public long waitedMillis() {
        return waitedMillis;
    }

    public String explanation() {
        return explanation;
    }

    /** One line: time, outcome, who, why. */
    @Override
    public String toString() {
        return Instant.ofEpochMilli(epochMillis) + " " + outcome + " provider=" + provider
                + (model != null ? " model=" + model : "") + " tenant=" + tenant + " class=" + trafficClass
                + (waitedMillis > 0 ? " waited=" + waitedMillis + "ms" : "")
                + (explanation != null ? " : " + explanation : "");
    }
}
