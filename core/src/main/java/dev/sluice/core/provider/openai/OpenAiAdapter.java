package dev.sluice.core.provider.openai;

import dev.sluice.config.Dimension;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.Organizations;
import dev.sluice.core.provider.ProviderAdapter;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.ProviderRequest;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.wire.ApiKeyIds;
import dev.sluice.core.provider.wire.HostNames;
import java.util.function.LongSupplier;

/**
 * The OpenAI API ({@code api.openai.com}): Chat Completions, Responses, Completions and
 * Embeddings. Admission mirrors OpenAI's own limiter, which charges a request max(max tokens,
 * estimated prompt) tokens and one request (providers.md); the provider scope is the
 * {@code OpenAI-Organization} and {@code OpenAI-Project} the request names. Stateless and
 * thread-safe.
 */
public final class OpenAiAdapter implements ProviderAdapter {

    /** The kind named in config. */
    public static final String KIND = "openai";

    private static final String HOST = "api.openai.com";
    private static final String PREFIX = "/v1/";

    private final LongSupplier wallClockMillis;

    /** An adapter on the system wall clock. */
    public OpenAiAdapter() {
        this(System::currentTimeMillis);
    }

    /**
     * @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams
     *     (the SPI passes {@code now} everywhere else)
     */
    public OpenAiAdapter(LongSupplier wallClockMillis) {
        this.wallClockMillis = wallClockMillis;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public boolean recognisesHost(String host) {
        return HOST.equals(HostNames.bare(host));
    }

    @Override
    public boolean recognises(String host, String path) {
        return HOST.equals(HostNames.bare(host)) && OpenAiOperation.at(path, PREFIX) != null;
    }

    @Override
    public boolean governsPath(String path) {
        return OpenAiOperation.at(path, PREFIX) != null;
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        if (request == null) {
            return RequestFacts.builder(KIND).build();
        }
        OpenAiOperation operation = OpenAiOperation.at(request.path(), PREFIX);
        OpenAiRequestBody body = OpenAiRequestBody.read(request.body(), request.bodyLength());
        long input = body.estimateInputTokens(estimator, body.model());
        Headers headers = request.headers();
        return RequestFacts.builder(KIND)
                .operation(operation == null ? "unknown" : operation.operationName())
                .model(body.model())
                .serviceTier(body.serviceTier())
                .streaming(body.stream())
                .streamUsageRequested(body.stream() && body.includeUsage())
                .maxOutputTokens(body.maxOutputTokens())
                .estimatedInputTokens(input)
                .apiKeyId(ApiKeyIds.fromBearer(headers))
                .providerScope("organization", headers.first("openai-organization"))
                .providerScope("project", headers.first("openai-project"))
                .providerCharge(Dimension.TOTAL_TOKENS, Math.max(body.maxOutputTokens(), input))
                .providerCharge(Dimension.REQUESTS, 1)
                .build();
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return OpenAiUsage.parser(facts, responseHeaders, estimator, wallClockMillis.getAsLong());
    }

    @Override
    public RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis) {
        return OpenAiRateLimits.read(responseHeaders);
    }

    @Override
    public long processingMillis(Headers responseHeaders) {
        return OpenAiRateLimits.processingMillis(responseHeaders);
    }

    /** Every answer names the organization it was counted against. */
    @Override
    public String organization(Headers responseHeaders) {
        return Organizations.named(responseHeaders.first("openai-organization"));
    }

    @Override
    public ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        return OpenAiErrors.classify(status, headers, body, nowEpochMillis);
    }

    @Override
    public LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return OpenAiLocalRejection.answer(rejection, facts);
    }
}
