package dev.sluice.core;

import java.util.Objects;

/**
 * Who is calling what: the provider and model, and the identity the limits and queues key on
 * (tenant, team, API key id, traffic class). Built once per logical call and reused for each of its
 * attempts. Immutable apart from a cache of resolved buckets the governor keeps on it.
 */
public final class CallContext {

    /** The traffic class of a call that names none. */
    public static final String DEFAULT_CLASS = "default";

    private final String provider;
    private final String providerKind;
    private final String model;
    private final String operation;
    private final String tenant;
    private final String team;
    private final String apiKeyId;
    private final String trafficClass;
    private final String deployment;
    private final String traceId;
    private final String organization;
    private final String region;
    private final String providerScopeKey;

    /** The governor's resolved route for this context; reused across attempts. */
    volatile Route cachedRoute;

    /** What the route depends on, made on first use (an immutable value: a race only builds it twice). */
    private RouteKey routeKey;

    private CallContext(Builder b) {
        this.provider = b.provider;
        this.providerKind = b.providerKind == null ? b.provider : b.providerKind;
        this.model = b.model;
        this.operation = b.operation;
        this.tenant = b.tenant;
        this.team = b.team;
        this.apiKeyId = b.apiKeyId;
        this.trafficClass = b.trafficClass == null ? DEFAULT_CLASS : b.trafficClass;
        this.deployment = b.deployment;
        this.traceId = b.traceId;
        this.organization = b.organization;
        this.region = b.region;
        String scope = provider + '|' + (apiKeyId == null ? "-" : apiKeyId) + '|' + (model == null ? "-" : model);
        this.providerScopeKey = region == null ? scope : scope + '|' + region;
    }

    /** @param provider the provider name (a configured provider's name, or the adapter kind) */
    public static Builder builder(String provider) {
        return new Builder(provider);
    }

    /** The provider's name: a configured provider's name, or the adapter kind for known hosts. */
    public String provider() {
        return provider;
    }

    /** The adapter kind: {@code openai}, {@code anthropic}, ... */
    public String providerKind() {
        return providerKind;
    }

    public String model() {
        return model;
    }

    public String operation() {
        return operation;
    }

    public String tenant() {
        return tenant;
    }

    public String team() {
        return team;
    }

    /** Short hash of the API key; never the key. */
    public String apiKeyId() {
        return apiKeyId;
    }

    public String trafficClass() {
        return trafficClass;
    }

    public String deployment() {
        return deployment;
    }

    public String traceId() {
        return traceId;
    }

    /**
     * The organization (and project) the provider counts this call against when the request or the
     * config names it; null when only the provider's answers can tell (see {@link AnswerLearner#learn}).
     */
    public String organization() {
        return organization;
    }

    /**
     * The region the provider serves the call in, when it counts its quotas per region (Bedrock:
     * the same credentials and model have a quota in each region); null otherwise.
     */
    public String region() {
        return region;
    }

    /**
     * The provider's own scope as far as its limits go, before its organization is known: the provider, the key (which names the
     * organization or project), the model and, where quotas are per region, the region. Limits
     * learned from headers and provider pauses key on it.
     */
    public String providerScopeKey() {
        return providerScopeKey;
    }

    RouteKey routeKey() {
        RouteKey k = routeKey;
        if (k == null) {
            k = new RouteKey(this);
            routeKey = k;
        }
        return k;
    }

    @Override
    public String toString() {
        return "CallContext{" + provider + (model != null ? "/" + model : "") + ", tenant=" + tenant
                + (team != null ? ", team=" + team : "") + ", class=" + trafficClass
                + (apiKeyId != null ? ", key=" + apiKeyId : "") + '}';
    }

    /** Builds a {@link CallContext}. */
    public static final class Builder {
        private final String provider;
        private String providerKind;
        private String model;
        private String operation;
        private String tenant;
        private String team;
        private String apiKeyId;
        private String trafficClass;
        private String deployment;
        private String traceId;
        private String organization;
        private String region;

        private Builder(String provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
        }

        public Builder providerKind(String v) {
            this.providerKind = v;
            return this;
        }

        public Builder model(String v) {
            this.model = v;
            return this;
        }

        public Builder operation(String v) {
            this.operation = v;
            return this;
        }

        public Builder tenant(String v) {
            this.tenant = v;
            return this;
        }

        public Builder team(String v) {
            this.team = v;
            return this;
        }

        public Builder apiKeyId(String v) {
            this.apiKeyId = v;
            return this;
        }

        public Builder trafficClass(String v) {
            this.trafficClass = v;
            return this;
        }

        public Builder deployment(String v) {
            this.deployment = v;
            return this;
        }

        public Builder traceId(String v) {
            this.traceId = v;
            return this;
        }

        /** The organization (and project, as {@code org/project}) the request or the config names. */
        public Builder organization(String v) {
            this.organization = v == null || v.isEmpty() ? null : v;
            return this;
        }

        /** The region whose quotas the call counts against, where the provider counts them per region. */
        public Builder region(String v) {
            this.region = v == null || v.isEmpty() ? null : v;
            return this;
        }

        public CallContext build() {
            return new CallContext(this);
        }
    }
}
