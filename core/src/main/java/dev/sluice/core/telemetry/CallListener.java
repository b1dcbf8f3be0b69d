package dev.sluice.core.telemetry;

import dev.sluice.config.Dimension;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.Usage;

/**
 * Told how each governed call ended, for an exporter that measures calls one by one (the
 * Prometheus endpoint's GenAI histograms, an application's OpenTelemetry meters). At most one is
 * set on the exchange engine ({@code ExchangeGovernance.callListener}); with none, a call pays one
 * null check.
 *
 * <p>Called on the thread that ends the call: the caller's, or the client's where a body ends
 * there. An implementation must not block, should not allocate more than it must, and must not
 * throw (a throw is caught, counted as a fault of Sluice's and logged, and the call goes on).
 */
public interface CallListener {

    /**
     * A governed call ended, as its caller sees it.
     *
     * @param call who called which provider and model, for which operation
     * @param durationNanos from the call's recognition to its end: the answer's body read (or
     *     closed) for a success, the answer handed back or the failure thrown otherwise; admission
     *     waits and retries included
     * @param usage what the provider reported, or Sluice counted, once a success's body ended;
     *     null when the call ended without a body to read (a refusal, a local rejection, a failure)
     * @param responseModel the model the answer named ({@code gen_ai.response.model}: OpenAI's
     *     {@code model}, Anthropic's {@code message.model}, Gemini's {@code modelVersion}), as the
     *     provider wrote it; null when there was no body to read or it named none
     * @param estimated what Sluice estimated and reserved before the first attempt
     * @param errorType null for a success; otherwise the HTTP status the caller got ({@code "429"},
     *     also for Sluice's own local rejections), the class name of what it threw, or the error a
     *     stream reported in its body ({@code "overloaded_error"})
     */
    void callEnded(
            CallContext call,
            long durationNanos,
            Usage usage,
            String responseModel,
            Demand estimated,
            String errorType);

    /**
     * The provider refused one attempt of a call (any status but 2xx).
     *
     * @param providerScopeKey the provider scope the attempt was admitted in ({@code
     *     provider|key id or org:organization|model}); never an API key, only its hashed id
     * @param limiter what the refusal named as exhausted, or null when it named nothing
     * @param retried whether Sluice tries again (false: the refusal is handed back)
     */
    void attemptRefused(CallContext call, String providerScopeKey, int status, Dimension limiter, boolean retried);
}
