package dev.sluice.core;

import dev.sluice.config.Dimension;

/**
 * Why a call was not admitted, in terms a user can act on: which limiter, on which scope, how
 * long to wait. Rendered as the {@code sluice} object of a local rejection (docs/design.md, Local rejections).
 * Never carries another tenant's usage, prompts or raw API keys. Immutable.
 */
public final class Rejection {

    private final GatewayDecision decision;
    private final Dimension limiter;
    private final String scope;
    private final String provider;
    private final String model;
    private final String trafficClass;
    private final String tenant;
    private final String apiKeyId;
    private final long retryAfterMillis;
    private final long estimatedInputTokens;
    private final long estimatedOutputTokens;
    private final long waitedMillis;
    private final String queueReason;
    private final String traceId;
    private final String detail;
    private final BudgetStatus budget;
    private final String route;
    private final boolean providerPause;

    private Rejection(Builder b) {
        this.decision = b.decision;
        this.limiter = b.limiter;
        this.scope = b.scope;
        this.provider = b.provider;
        this.model = b.model;
        this.trafficClass = b.trafficClass;
        this.tenant = b.tenant;
        this.apiKeyId = b.apiKeyId;
        this.retryAfterMillis = b.retryAfterMillis;
        this.estimatedInputTokens = b.estimatedInputTokens;
        this.estimatedOutputTokens = b.estimatedOutputTokens;
        this.waitedMillis = b.waitedMillis;
        this.queueReason = b.queueReason;
        this.traceId = b.traceId;
        this.detail = b.detail;
        this.budget = b.budget;
        this.route = b.route;
        this.providerPause = b.providerPause;
    }

    public static Builder builder(GatewayDecision decision) {
        return new Builder(decision);
    }

    /** The builder pre-filled with this rejection's fields, to derive a variant. */
    public Builder toBuilder() {
        Builder b = new Builder(decision);
        b.limiter = limiter;
        b.scope = scope;
        b.provider = provider;
        b.model = model;
        b.trafficClass = trafficClass;
        b.tenant = tenant;
        b.apiKeyId = apiKeyId;
        b.retryAfterMillis = retryAfterMillis;
        b.estimatedInputTokens = estimatedInputTokens;
        b.estimatedOutputTokens = estimatedOutputTokens;
        b.waitedMillis = waitedMillis;
        b.queueReason = queueReason;
        b.traceId = traceId;
        b.detail = detail;
        b.budget = budget;
        b.route = route;
        b.providerPause = providerPause;
        return b;
    }

    public GatewayDecision decision() {
        return decision;
    }

    /** The dimension whose limit refused the call; null when no limit did (paused, queue full). */
    public Dimension limiter() {
        return limiter;
    }

    /** The scope of the refusing bucket, e.g. {@code openai/prod/tenant=search}; null when none. */
    public String scope() {
        return scope;
    }

    public String provider() {
        return provider;
    }

    public String model() {
        return model;
    }

    public String trafficClass() {
        return trafficClass;
    }

    public String tenant() {
        return tenant;
    }

    /** Short hash of the API key, never the key. */
    public String apiKeyId() {
        return apiKeyId;
    }

    /** How long the caller should wait before trying again; 0 when unknown or pointless. */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }

    public long estimatedInputTokens() {
        return estimatedInputTokens;
    }

    public long estimatedOutputTokens() {
        return estimatedOutputTokens;
    }

    /** How long the call waited in its queue before this decision. */
    public long waitedMillis() {
        return waitedMillis;
    }

    /** Why the queue gave up, e.g. {@code deadline}, {@code full}; null when the call never queued. */
    public String queueReason() {
        return queueReason;
    }

    public String traceId() {
        return traceId;
    }

    /**
     * One line a user can read without the source, e.g. {@code needs 4200, 1900 free, refills in
     * 2.4 s}.
     */
    public String detail() {
        return detail;
    }

    /** For {@code budget_exhausted}: where the budget that refused the call stands; else null. */
    public BudgetStatus budget() {
        return budget;
    }

    /** The route the call was on, for a call of a class with fallback routes; else null. */
    public String route() {
        return route;
    }

    /**
     * Whether what holds the call is a pause the provider asked for (its scope waits out a 429's
     * wait), for {@link #retryAfterMillis()}; false for a shortage of Sluice's own buckets.
     */
    public boolean providerPause() {
        return providerPause;
    }

    /** The decision as one log line. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(128).append("429 ").append(decision.wireName());
        if (limiter != null) {
            s.append(": limiter=").append(limiter.configName());
        }
        if (scope != null) {
            s.append(" scope=").append(scope);
        }
        if (detail != null) {
            s.append(" ").append(detail);
        }
        if (queueReason != null) {
            s.append("; waited ")
                    .append(waitedMillis)
                    .append(" ms (class ")
                    .append(trafficClass)
                    .append(", ")
                    .append(queueReason)
                    .append(')');
        }
        return s.toString();
    }

    /** Builds a {@link Rejection}. */
    public static final class Builder {
        private final GatewayDecision decision;
        private Dimension limiter;
        private String scope;
        private String provider;
        private String model;
        private String trafficClass;
        private String tenant;
        private String apiKeyId;
        private long retryAfterMillis;
        private long estimatedInputTokens;
        private long estimatedOutputTokens;
        private long waitedMillis;
        private String queueReason;
        private String traceId;
        private String detail;
        private BudgetStatus budget;
        private String route;
        private boolean providerPause;

        private Builder(GatewayDecision decision) {
            if (decision == null) {
                throw new IllegalArgumentException("decision must not be null");
            }
            this.decision = decision;
        }

        public Builder limiter(Dimension v) {
            this.limiter = v;
            return this;
        }

        public Builder scope(String v) {
            this.scope = v;
            return this;
        }

        public Builder provider(String v) {
            this.provider = v;
            return this;
        }

        public Builder model(String v) {
            this.model = v;
            return this;
        }

        public Builder trafficClass(String v) {
            this.trafficClass = v;
            return this;
        }

        public Builder tenant(String v) {
            this.tenant = v;
            return this;
        }

        public Builder apiKeyId(String v) {
            this.apiKeyId = v;
            return this;
        }

        public Builder retryAfterMillis(long v) {
            this.retryAfterMillis = Math.max(0, v);
            return this;
        }

        public Builder estimatedInputTokens(long v) {
            this.estimatedInputTokens = v;
            return this;
        }

        public Builder estimatedOutputTokens(long v) {
            this.estimatedOutputTokens = v;
            return this;
        }

        public Builder waitedMillis(long v) {
            this.waitedMillis = Math.max(0, v);
            return this;
        }

        public Builder queueReason(String v) {
            this.queueReason = v;
            return this;
        }

        public Builder traceId(String v) {
            this.traceId = v;
            return this;
        }

        public Builder detail(String v) {
            this.detail = v;
            return this;
        }

        public Builder budget(BudgetStatus v) {
            this.budget = v;
            return this;
        }

        public Builder route(String v) {
            this.route = v;
            return this;
        }

        public Builder providerPause(boolean v) {
            this.providerPause = v;
            return this;
        }

        public Rejection build() {
            return new Rejection(this);
        }
    }
}
