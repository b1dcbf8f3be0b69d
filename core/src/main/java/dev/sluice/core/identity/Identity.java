package dev.sluice.core.identity;

/** Who a call is for: tenant, team (may be null) and traffic class. Immutable. */
public final class Identity {

    private final String tenant;
    private final String team;
    private final String trafficClass;

    Identity(String tenant, String team, String trafficClass) {
        this.tenant = tenant;
        this.team = team;
        this.trafficClass = trafficClass;
    }

    public String tenant() {
        return tenant;
    }

    public String team() {
        return team;
    }

    public String trafficClass() {
        return trafficClass;
    }
}
