package dev.sluice.core.provider;

import dev.sluice.config.Dimension;
import dev.sluice.core.Rejection;

/**
 * Everything Sluice knows about one provider's protocol: how to recognise its requests, read
 * them, read its usage, its rate-limit headers and its errors, and how to answer in its own error
 * shape. One stateless, thread-safe instance per provider kind. No method throws: malformed
 * input from the application or the provider yields defaults, never an exception.
 */
public interface ProviderAdapter {

    /** The kind named in config: {@code openai}, {@code azure-openai}, {@code anthropic}, ... */
    String kind();

    /** Whether a request to this host and path is this provider's, with no config at all. */
    boolean recognises(String host, String path);

    /**
     * Whether this is one of the provider's public hosts, whatever the path: a connection to it
     * carries this provider's calls (used to tell the operator about calls that bypass Sluice).
     */
    default boolean recognisesHost(String host) {
        return false;
    }

    /**
     * Whether a request on this path, to a host or URL that config assigns to this provider, is a
     * call to govern (a completion, not a model listing or a file upload).
     */
    default boolean governsPath(String path) {
        return true;
    }

    /** Reads model, limits-relevant fields and an input estimate from the request. */
    RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator);

    /** A parser for the body of a successful response to a request with these facts. */
    UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator);

    /** The budgets announced in a response's headers (any status); empty when none. */
    RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis);

    /**
     * How long the provider says it worked on the call before answering ({@code
     * openai-processing-ms}), or {@link RateLimitSnapshot#UNKNOWN} when it does not say. The
     * provider counted the call, and worked out the figures of {@link #readRateLimits}, when the
     * call arrived: about that long before its answer came.
     */
    default long processingMillis(Headers responseHeaders) {
        return RateLimitSnapshot.UNKNOWN;
    }

    /**
     * The organization a response says the call was counted against ({@code openai-organization},
     * {@code anthropic-organization-id}), or null when the provider does not say: its limits
     * belong to that organization, shared by every key of it, not to the key.
     */
    default String organization(Headers responseHeaders) {
        return null;
    }

    /**
     * Classifies a non-2xx answer (status, headers, the buffered body) into an outcome class with
     * the provider's wait hint when it gave one. {@code x-should-retry} is authoritative where the
     * provider sends it.
     */
    ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis);

    /**
     * A local rejection in this provider's error shape: status 429, {@code retry-after} and
     * {@code retry-after-ms}, {@code x-should-retry: false}, and the {@code sluice} object of the
     * rejection in the body, so the SDK raises its usual rate-limit exception.
     */
    LocalAnswer localRejection(Rejection rejection, RequestFacts facts);

    /**
     * Whether the provider trues this dimension up to actual usage after the call (Anthropic
     * output tokens) rather than keeping what it charged at admission (OpenAI tokens). Buckets
     * that mirror the provider settle accordingly.
     */
    default boolean truesUp(Dimension dimension) {
        return false;
    }

    /**
     * Whether this provider's answers tell its limits (rate-limit headers). Where they never do
     * (Gemini, Vertex AI, a fixed-window gateway), its 429s alone set Sluice's pace.
     */
    default boolean announcesLimits() {
        return true;
    }
}
