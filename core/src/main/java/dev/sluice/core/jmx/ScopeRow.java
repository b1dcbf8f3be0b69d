package dev.sluice.core.jmx;

import javax.management.openmbean.CompositeData;

/**
 * One provider scope (a provider, an organization once its answers name it or else an API key, and
 * a model): its pause, retry budget and estimate
 * error, a row of a provider's scope table (a {@code CompositeData} on the wire). Immutable.
 */
public final class ScopeRow {

    private final String scope;
    private final String apiKeyId;
    private final String organization;
    private final String model;
    private final long pausedForMillis;
    private final double retryBudgetRemaining;
    private final double inputEstimateError;
    private final int learnedLimits;
    private final double externalShare;
    private final long pacedBy429sPerMinute;

    public ScopeRow(
            String scope,
            String apiKeyId,
            String organization,
            String model,
            long pausedForMillis,
            double retryBudgetRemaining,
            double inputEstimateError,
            int learnedLimits,
            double externalShare,
            long pacedBy429sPerMinute) {
        this.scope = scope;
        this.apiKeyId = apiKeyId;
        this.organization = organization;
        this.model = model;
        this.pausedForMillis = pausedForMillis;
        this.retryBudgetRemaining = retryBudgetRemaining;
        this.inputEstimateError = inputEstimateError;
        this.learnedLimits = learnedLimits;
        this.externalShare = externalShare;
        this.pacedBy429sPerMinute = pacedBy429sPerMinute;
    }

    /** Rebuilds a row read from a JMX connection (what MXBean proxies call). */
    public static ScopeRow from(CompositeData d) {
        return new ScopeRow(
                (String) d.get("scope"),
                (String) d.get("apiKeyId"),
                (String) d.get("organization"),
                (String) d.get("model"),
                (Long) d.get("pausedForMillis"),
                (Double) d.get("retryBudgetRemaining"),
                (Double) d.get("inputEstimateError"),
                (Integer) d.get("learnedLimits"),
                d.containsKey("externalShare") ? (Double) d.get("externalShare") : 0.0,
                d.containsKey("pacedBy429sPerMinute") ? (Long) d.get("pacedBy429sPerMinute") : -1L);
    }

    /** E.g. {@code openai/k_3f9a1c/gpt-4o-mini}. */
    public String getScope() {
        return scope;
    }

    /** The hashed key id ({@code -} when the call had none, or the scope is an organization's). */
    public String getApiKeyId() {
        return apiKeyId;
    }

    /**
     * The organization (and {@code /project}) the provider counts this scope's calls against, shared
     * by all its keys; {@code -} until an answer, the request or the config names it.
     */
    public String getOrganization() {
        return organization;
    }

    public String getModel() {
        return model;
    }

    /** How much longer the provider asked this scope to wait (a 429 with Retry-After); 0 when open. */
    public long getPausedForMillis() {
        return pausedForMillis;
    }

    /** Retries this scope may still spend now. */
    public double getRetryBudgetRemaining() {
        return retryBudgetRemaining;
    }

    /** |learned input correction - 1| for the scope's model: 0.1 means estimates were 10 % off. */
    public double getInputEstimateError() {
        return inputEstimateError;
    }

    /** Limits learned from this scope's rate-limit headers. */
    public int getLearnedLimits() {
        return learnedLimits;
    }

    /**
     * The share of the scope's budgets that consumers Sluice cannot see are estimated to take (the
     * largest over its budgets, 0 to 0.9): Sluice paces under what they leave, and gives it back as
     * the evidence fades.
     */
    public double getExternalShare() {
        return externalShare;
    }

    /**
     * The pace, in calls a minute, that the provider's 429s alone set for a scope whose answers carry
     * no rate-limit headers (Gemini, Vertex AI, a fixed-window gateway): cut on a refusal, raised
     * while calls are accepted. -1 when the scope has none.
     */
    public long getPacedBy429sPerMinute() {
        return pacedBy429sPerMinute;
    }
}
