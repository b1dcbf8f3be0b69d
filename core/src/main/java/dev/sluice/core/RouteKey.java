package dev.sluice.core;

import java.util.Objects;

/**
 * What a call's route depends on: the provider, model, deployment and region the limits and provider scope match, the
 * identity the per-value buckets key on (tenant, team, API key id) and the traffic class its
 * counters are kept under. Two contexts with equal keys cross the same buckets, so the governor
 * resolves a route once per key rather than once per call.
 */
final class RouteKey {

    private final String provider;
    private final String model;
    private final String deployment;
    private final String tenant;
    private final String team;
    private final String apiKeyId;
    private final String trafficClass;
    private final String organization;
    private final String region;
    private final int hash;

    RouteKey(CallContext call) {
        this.provider = call.provider();
        this.model = call.model();
        this.deployment = call.deployment();
        this.tenant = call.tenant();
        this.team = call.team();
        this.apiKeyId = call.apiKeyId();
        this.trafficClass = call.trafficClass();
        this.organization = call.organization();
        this.region = call.region();
        // Objects.hash's value, without the array its varargs make on every call
        int h = 1;
        h = 31 * h + Objects.hashCode(provider);
        h = 31 * h + Objects.hashCode(model);
        h = 31 * h + Objects.hashCode(deployment);
        h = 31 * h + Objects.hashCode(tenant);
        h = 31 * h + Objects.hashCode(team);
        h = 31 * h + Objects.hashCode(apiKeyId);
        h = 31 * h + Objects.hashCode(trafficClass);
        h = 31 * h + Objects.hashCode(organization);
        h = 31 * h + Objects.hashCode(region);
        this.hash = h;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RouteKey)) {
            return false;
        }
        RouteKey k = (RouteKey) o;
        return hash == k.hash
                && provider.equals(k.provider)
                && Objects.equals(model, k.model)
                && Objects.equals(deployment, k.deployment)
                && Objects.equals(tenant, k.tenant)
                && Objects.equals(team, k.team)
                && Objects.equals(apiKeyId, k.apiKeyId)
                && trafficClass.equals(k.trafficClass)
                && Objects.equals(organization, k.organization)
                && Objects.equals(region, k.region);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
