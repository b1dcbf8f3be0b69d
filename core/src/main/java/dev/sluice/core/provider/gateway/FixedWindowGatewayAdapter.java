package dev.sluice.core.provider.gateway;

import dev.sluice.config.Dimension;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.AdapterSettings;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderAdapter;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.ProviderRequest;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.compatible.OpenAiCompatibleAdapter;
import dev.sluice.core.provider.openai.OpenAiUsage;
import java.util.Objects;

/**
 * A gateway in front of models that counts calls in fixed windows per bucket and tells callers
 * nothing in headers (providers.md, last section): 600 calls per key and 1800 per organization per
 * minute, 8 calls in flight per key refused at once, 402 for the daily spend cap, 409 for the
 * residency filter, 413 for bodies over 1 MB. Requests and usage are OpenAI's format (the
 * operation found by its path tail, as for any compatible server).
 *
 * <p>A call is charged one request and one concurrency slot, which is what the gateway counts;
 * tokens are not limited there. As nothing can be learned from its answers beyond a 429's
 * "Retry after" instant, its windows must be configured (fixed-window limits of 600 per
 * {@code api_key} and 1800 per organization, concurrency 8 per {@code api_key}); its counters live
 * per gateway process, so two gateway nodes double every limit. Never recognised by host.
 * Stateless and thread-safe.
 */
public final class FixedWindowGatewayAdapter implements ProviderAdapter {

    /** The kind named in config. */
    public static final String KIND = "fixed-window-gateway";

    private final AdapterSettings settings;

    public FixedWindowGatewayAdapter() {
        this(AdapterSettings.defaults());
    }

    /** Only the wall clock is read: to write the instant a local rejection tells callers to come back at. */
    public FixedWindowGatewayAdapter(AdapterSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public boolean recognises(String host, String path) {
        return false;
    }

    @Override
    public boolean governsPath(String path) {
        return dev.sluice.core.provider.openai.OpenAiOperation.endingIn(path) != null;
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        RequestFacts openAi = OpenAiCompatibleAdapter.read(KIND, request, estimator);
        return RequestFacts.builder(KIND)
                .operation(openAi.operation())
                .model(openAi.model())
                .serviceTier(openAi.serviceTier())
                .streaming(openAi.streaming())
                .streamUsageRequested(openAi.streamUsageRequested())
                .maxOutputTokens(openAi.maxOutputTokens())
                .estimatedInputTokens(openAi.estimatedInputTokens())
                .apiKeyId(openAi.apiKeyId())
                .providerCharge(Dimension.REQUESTS, 1)
                .providerCharge(Dimension.CONCURRENCY, 1)
                .build();
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return OpenAiUsage.parser(
                facts, responseHeaders, estimator, settings.wallClockMillis().getAsLong());
    }

    /** The gateway sends no budget headers at all. */
    @Override
    public RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis) {
        return RateLimitSnapshot.none();
    }

    @Override
    public ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        return GatewayErrors.classify(status, headers, body, nowEpochMillis);
    }

    @Override
    public LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return GatewayLocalRejection.answer(
                rejection, facts, settings.wallClockMillis().getAsLong());
    }

    /** Its answers carry no rate-limit headers: its 429s set the pace. */
    @Override
    public boolean announcesLimits() {
        return false;
    }
}
