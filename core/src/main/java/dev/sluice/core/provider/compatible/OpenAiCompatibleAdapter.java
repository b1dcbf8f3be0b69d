package dev.sluice.core.provider.compatible;

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
import dev.sluice.core.provider.openai.OpenAiAdapter;
import dev.sluice.core.provider.openai.OpenAiOperation;
import dev.sluice.core.provider.openai.OpenAiRequestBody;
import dev.sluice.core.provider.openai.OpenAiUsage;
import dev.sluice.core.provider.wire.ApiKeyIds;
import java.util.Objects;

/**
 * Any server speaking the OpenAI API: self-hosted vLLM, Groq, Mistral, internal gateways. Never
 * recognised by host alone ({@link #recognises} is false): a configured provider's URL prefixes or
 * hosts select it. Chat Completions, Completions, Embeddings and Responses are recognised by their
 * path tail under any prefix.
 *
 * <p>Such servers' limiters are not documented alike, so a request is charged what it can use at
 * most, its prompt plus {@code max_tokens} in tokens (Groq counts it so), and one request; by
 * default the token charge is trued up to actual usage, which is what a self-hosted server's
 * capacity really spends ({@link AdapterSettings#truesUpTokens()}). Budget headers are OpenAI's
 * and Mistral's, over the configured windows; errors are OpenAI's rules over the shapes these
 * servers send; a local rejection is OpenAI's own 429. Stateless and thread-safe.
 */
public final class OpenAiCompatibleAdapter implements ProviderAdapter {

    /** The kind named in config. */
    public static final String KIND = "openai-compatible";

    /** Writes the local rejection: OpenAI's 429 shape, which every OpenAI client parses. */
    private static final OpenAiAdapter OPENAI_SHAPE = new OpenAiAdapter();

    private final AdapterSettings settings;

    /** Per-minute budgets, tokens trued up. */
    public OpenAiCompatibleAdapter() {
        this(AdapterSettings.defaults());
    }

    public OpenAiCompatibleAdapter(AdapterSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    public AdapterSettings settings() {
        return settings;
    }

    @Override
    public String kind() {
        return KIND;
    }

    /** Never by host: nothing about a compatible server's host says what it is. */
    @Override
    public boolean recognises(String host, String path) {
        return false;
    }

    @Override
    public boolean governsPath(String path) {
        return OpenAiOperation.endingIn(path) != null;
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        return read(KIND, request, estimator);
    }

    /** Reads an OpenAI-format request for an adapter of this kind; shared with gateways that take the same body. */
    public static RequestFacts read(String kind, ProviderRequest request, TokenEstimator estimator) {
        if (request == null) {
            return RequestFacts.builder(kind).build();
        }
        OpenAiOperation operation = OpenAiOperation.endingIn(request.path());
        OpenAiRequestBody body = OpenAiRequestBody.read(request.body(), request.bodyLength());
        long input = body.estimateInputTokens(estimator, body.model());
        boolean embeddings = operation == OpenAiOperation.EMBEDDINGS;
        long output = embeddings ? 0 : Math.max(0, body.maxOutputTokens());
        Headers headers = request.headers();
        String keyId = ApiKeyIds.fromBearer(headers);
        if (keyId == null) {
            keyId = ApiKeyIds.fromHeader(headers, "x-api-key");
        }
        if (keyId == null) {
            keyId = ApiKeyIds.fromHeader(headers, "api-key");
        }
        return RequestFacts.builder(kind)
                .operation(operation == null ? "unknown" : operation.operationName())
                .model(body.model())
                .serviceTier(body.serviceTier())
                .streaming(body.stream())
                .streamUsageRequested(body.stream() && body.includeUsage())
                .maxOutputTokens(body.maxOutputTokens())
                .estimatedInputTokens(input)
                .apiKeyId(keyId)
                .providerCharge(Dimension.TOTAL_TOKENS, input + output)
                .providerCharge(Dimension.REQUESTS, 1)
                .build();
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return OpenAiUsage.parser(
                facts, responseHeaders, estimator, settings.wallClockMillis().getAsLong());
    }

    @Override
    public RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis) {
        return CompatibleRateLimits.read(
                responseHeaders,
                settings.requestsWindow().toMillis(),
                settings.tokensWindow().toMillis());
    }

    @Override
    public ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        return CompatibleErrors.classify(status, headers, body, nowEpochMillis);
    }

    @Override
    public LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return OPENAI_SHAPE.localRejection(rejection, facts);
    }

    @Override
    public boolean truesUp(Dimension dimension) {
        return settings.truesUpTokens()
                && (dimension == Dimension.TOTAL_TOKENS
                        || dimension == Dimension.INPUT_TOKENS
                        || dimension == Dimension.OUTPUT_TOKENS);
    }
}
