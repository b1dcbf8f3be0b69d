package dev.sluice.core.provider.anthropic;

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
 * The Anthropic Messages API ({@code POST api.anthropic.com/v1/messages}). Admission mirrors
 * Anthropic's limiter (providers.md): a request costs one request, its whole prompt in input tokens
 * (cache reads cannot be told apart before the call) and {@code max_tokens} in output tokens, which
 * Anthropic trues up to the real output when the answer ends. Input is trued up too: Anthropic
 * charges the exact prompt count (uncached plus cache writes), of which Sluice's figure is only an
 * estimate.
 *
 * <p>{@code /v1/messages/count_tokens} is not an LLM call and has its own request limit: it is not
 * recognised by host, and when a configured match routes it here anyway it reads as a zero-cost
 * call (no tokens, no provider charges). Message Batches ({@code /v1/messages/batches}) have
 * separate limits and are not governed.
 *
 * <p>The API key id comes from {@code x-api-key} (or a Bearer token). The request names no provider
 * scope: a workspace is implied by its key, and the key id already separates keys. Stateless and
 * thread-safe.
 */
public final class AnthropicAdapter implements ProviderAdapter {

    /** The kind named in config. */
    public static final String KIND = "anthropic";

    /** The operation of {@code /v1/messages}. */
    public static final String MESSAGES = "messages";

    /** The operation of {@code /v1/messages/count_tokens}: not governed, free when routed here. */
    public static final String COUNT_TOKENS = "messages.count_tokens";

    private static final String HOST = "api.anthropic.com";
    private static final String MESSAGES_PATH = "/v1/messages";
    private static final String COUNT_TOKENS_PATH = "/v1/messages/count_tokens";

    private final LongSupplier wallClockMillis;

    /** An adapter on the system wall clock. */
    public AnthropicAdapter() {
        this(System::currentTimeMillis);
    }

    /** @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams */
    public AnthropicAdapter(LongSupplier wallClockMillis) {
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
        return HOST.equals(HostNames.bare(host)) && MESSAGES.equals(operation(path));
    }

    @Override
    public boolean governsPath(String path) {
        return MESSAGES.equals(operation(path));
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        if (request == null) {
            return RequestFacts.builder(KIND).build();
        }
        String operation = operation(request.path());
        AnthropicRequestBody body = AnthropicRequestBody.read(request.body(), request.bodyLength());
        Headers headers = request.headers();
        String keyId = ApiKeyIds.fromHeader(headers, "x-api-key");
        RequestFacts.Builder facts = RequestFacts.builder(KIND)
                .operation(operation)
                .model(body.model())
                .apiKeyId(keyId != null ? keyId : ApiKeyIds.fromBearer(headers));
        if (COUNT_TOKENS.equals(operation)) {
            return facts.maxOutputTokens(0)
                    .estimatedInputTokens(0)
                    .providerCharge(Dimension.REQUESTS, 0)
                    .providerCharge(Dimension.INPUT_TOKENS, 0)
                    .providerCharge(Dimension.OUTPUT_TOKENS, 0)
                    .providerCharge(Dimension.TOTAL_TOKENS, 0)
                    .build();
        }
        long input = body.estimateInputTokens(estimator);
        long output = Math.max(0, body.maxTokens()); // required by the API: without it the call is refused unserved
        return facts.streaming(body.stream())
                .maxOutputTokens(body.maxTokens())
                .estimatedInputTokens(input)
                .providerCharge(Dimension.INPUT_TOKENS, input)
                .providerCharge(Dimension.OUTPUT_TOKENS, output)
                .providerCharge(Dimension.TOTAL_TOKENS, input + output)
                .providerCharge(Dimension.REQUESTS, 1)
                .build();
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return AnthropicUsage.parser(facts, responseHeaders, estimator, wallClockMillis.getAsLong());
    }

    @Override
    public RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis) {
        return AnthropicRateLimits.read(responseHeaders, nowEpochMillis);
    }

    /** Every answer names the organization the key belongs to. */
    @Override
    public String organization(Headers responseHeaders) {
        return Organizations.named(responseHeaders.first("anthropic-organization-id"));
    }

    @Override
    public ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        return AnthropicErrors.classify(status, headers, body, nowEpochMillis);
    }

    @Override
    public LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return AnthropicLocalRejection.answer(rejection, facts);
    }

    /** Anthropic settles tokens to what the call really used: output from {@code max_tokens}, input from the exact prompt count. */
    @Override
    public boolean truesUp(Dimension dimension) {
        return dimension == Dimension.OUTPUT_TOKENS
                || dimension == Dimension.INPUT_TOKENS
                || dimension == Dimension.TOTAL_TOKENS;
    }

    /** {@link #MESSAGES}, {@link #COUNT_TOKENS}, or {@code unknown}; a trailing slash is tolerated. */
    static String operation(String path) {
        if (path == null) {
            return "unknown";
        }
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        if (p.equals(MESSAGES_PATH)) {
            return MESSAGES;
        }
        return p.equals(COUNT_TOKENS_PATH) ? COUNT_TOKENS : "unknown";
    }
}
