package dev.sluice.core.provider.azure;

import dev.sluice.config.Dimension;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderAdapter;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.ProviderRequest;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.openai.OpenAiOperation;
import dev.sluice.core.provider.openai.OpenAiRateLimits;
import dev.sluice.core.provider.openai.OpenAiRequestBody;
import dev.sluice.core.provider.openai.OpenAiUsage;
import dev.sluice.core.provider.wire.ApiKeyIds;
import dev.sluice.core.provider.wire.HostNames;
import java.util.function.LongSupplier;

/**
 * Azure OpenAI ({@code *.openai.azure.com}, {@code *.cognitiveservices.azure.com},
 * {@code *.services.ai.azure.com}): the OpenAI body and usage formats behind Azure's routes,
 * keys and limiter. Azure charges a request its prompt plus {@code max_tokens} at admission, and
 * without {@code max_tokens} the model's maximum (providers.md); as that maximum is not in the
 * request, {@link #ASSUMED_MAX_OUTPUT_TOKENS} stands in for it, erring toward reserving too much.
 * Its quota is per deployment, so the provider scope is the resource (the host's first label) and
 * the deployment. Stateless and thread-safe.
 */
public final class AzureOpenAiAdapter implements ProviderAdapter {

    /** The kind named in config. */
    public static final String KIND = "azure-openai";

    /** Output tokens Azure is assumed to reserve when a request sets no maximum: the cap of most chat models it hosts. */
    public static final long ASSUMED_MAX_OUTPUT_TOKENS = 4096;

    /** Azure's {@code x-ratelimit-remaining-requests} tracks a 10-second window (RPM/6). */
    static final long REQUESTS_WINDOW_MILLIS = 10_000;

    private static final String[] HOST_SUFFIXES = {
        ".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com"
    };

    private final LongSupplier wallClockMillis;

    /** An adapter on the system wall clock. */
    public AzureOpenAiAdapter() {
        this(System::currentTimeMillis);
    }

    /** @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams */
    public AzureOpenAiAdapter(LongSupplier wallClockMillis) {
        this.wallClockMillis = wallClockMillis;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public boolean recognisesHost(String host) {
        return isAzureHost(HostNames.bare(host));
    }

    @Override
    public boolean recognises(String host, String path) {
        return isAzureHost(HostNames.bare(host)) && AzurePath.of(path) != null;
    }

    @Override
    public boolean governsPath(String path) {
        return AzurePath.of(path) != null;
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        if (request == null) {
            return RequestFacts.builder(KIND).build();
        }
        AzurePath route = AzurePath.of(request.path());
        OpenAiRequestBody body = OpenAiRequestBody.read(request.body(), request.bodyLength());
        String deployment = route != null && route.deployment != null ? route.deployment : body.model();
        String model = body.model() != null ? body.model() : deployment;
        long input = body.estimateInputTokens(estimator, model);
        boolean embeddings = route != null && route.operation == OpenAiOperation.EMBEDDINGS;
        long reservedOutput =
                embeddings ? 0 : body.maxOutputTokens() >= 0 ? body.maxOutputTokens() : ASSUMED_MAX_OUTPUT_TOKENS;
        Headers headers = request.headers();
        String keyId = ApiKeyIds.fromHeader(headers, "api-key");
        return RequestFacts.builder(KIND)
                .operation(route == null ? "unknown" : route.operation.operationName())
                .model(model)
                .deployment(deployment)
                .serviceTier(body.serviceTier())
                .streaming(body.stream())
                .streamUsageRequested(body.stream() && body.includeUsage())
                .maxOutputTokens(body.maxOutputTokens())
                .estimatedInputTokens(input)
                .apiKeyId(keyId != null ? keyId : ApiKeyIds.fromBearer(headers))
                .providerScope("resource", resource(request.host()))
                .providerScope("deployment", deployment)
                .providerCharge(Dimension.TOTAL_TOKENS, input + reservedOutput)
                .providerCharge(Dimension.REQUESTS, 1)
                .build();
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return OpenAiUsage.parser(facts, responseHeaders, estimator, wallClockMillis.getAsLong());
    }

    @Override
    public RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis) {
        return OpenAiRateLimits.read(responseHeaders, REQUESTS_WINDOW_MILLIS, OpenAiRateLimits.MINUTE_MILLIS);
    }

    @Override
    public long processingMillis(Headers responseHeaders) {
        return OpenAiRateLimits.processingMillis(responseHeaders);
    }

    @Override
    public ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        return AzureErrors.classify(status, headers, body, nowEpochMillis);
    }

    @Override
    public LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return AzureLocalRejection.answer(rejection, facts);
    }

    private static boolean isAzureHost(String host) {
        for (String suffix : HOST_SUFFIXES) {
            if (host.endsWith(suffix) && host.length() > suffix.length()) {
                return true;
            }
        }
        return false;
    }

    /** The Azure resource: the first label of {@code <resource>.openai.azure.com}. */
    private static String resource(String host) {
        String bare = HostNames.bare(host);
        int dot = bare.indexOf('.');
        return dot > 0 ? bare.substring(0, dot) : null;
    }
}
