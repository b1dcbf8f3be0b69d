package dev.sluice.core;

/**
 * The one place a {@link Rejection} is made from a call: the governor's refusals, and the
 * exchange engine's answers when it stops (a provider's refusal handed back, a fault in fail mode
 * closed). Every rejection names the same things about its call, and never another tenant's.
 */
public final class Rejections {

    private Rejections() {}

    /** A rejection of this call, naming its provider, model, class, tenant, key id and trace. */
    public static Rejection.Builder forCall(GatewayDecision decision, CallContext call) {
        return Rejection.builder(decision)
                .provider(call.provider())
                .model(call.model())
                .trafficClass(call.trafficClass())
                .tenant(call.tenant())
                .apiKeyId(call.apiKeyId())
                .traceId(call.traceId());
    }

    /** As {@link #forCall(GatewayDecision, CallContext)}, with the demand's estimates. */
    public static Rejection.Builder forCall(GatewayDecision decision, CallContext call, Demand demand) {
        return forCall(decision, call)
                .estimatedInputTokens(demand.inputTokens())
                .estimatedOutputTokens(demand.outputTokens());
    }

    /** A call Sluice could not govern, refused because the fail mode is closed. */
    public static Rejection failedClosed(String provider, CallContext call) {
        Rejection.Builder b = call != null
                ? forCall(GatewayDecision.REJECTED_LOCALLY, call)
                : Rejection.builder(GatewayDecision.REJECTED_LOCALLY).provider(provider);
        return b.detail("Sluice fault (fail mode closed)").build();
    }

    /**
     * The governor's refusal of a demand that does not fit: the limiter and scope that are short
     * (counted on that limit), how long until it fits, and what the call waited.
     */
    static Rejection forShortfall(
            GatewayDecision decision,
            CallContext call,
            Demand demand,
            Shortfall s,
            long waitedNanos,
            String queueReason) {
        Rejection.Builder b = forCall(decision, call, demand)
                .waitedMillis(waitedNanos / 1_000_000)
                .queueReason(queueReason);
        if (s != null) {
            if (s.bucket != null) {
                s.bucket.limit().countRejection(decision);
                b.limiter(s.bucket.limit().dimension()).scope(s.bucket.scopeName());
            } else {
                b.scope(call.provider() + " (paused by the provider)").providerPause(!s.slowStart);
            }
            long retryAfter = s.retryAfterMillis();
            if (retryAfter > 0) {
                b.retryAfterMillis(retryAfter);
            }
            b.detail(s.describe());
        }
        return b.build();
    }
}
