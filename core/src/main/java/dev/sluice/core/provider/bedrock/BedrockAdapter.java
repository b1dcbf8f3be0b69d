package dev.sluice.core.provider.bedrock;

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
import dev.sluice.core.provider.wire.ApiKeyIds;
import dev.sluice.core.provider.wire.HostNames;
import java.util.function.LongSupplier;

/**
 * Amazon Bedrock Runtime ({@code bedrock-runtime.<region>.amazonaws.com}): Converse,
 * ConverseStream, InvokeModel and InvokeModelWithResponseStream on {@code /model/{modelId}/...}.
 *
 * <p>Bedrock counts quotas per account, region and model (requests and tokens per minute). The
 * account is the credentials' access key id, read from the SigV4 {@code Authorization} header's
 * {@code Credential=AKIA.../date/region/bedrock/aws4_request} and hashed (never kept), or a
 * Bedrock API key's Bearer token; the region is the host's, else the signature's. Its token quota
 * takes input plus the maximum output at the start of a call and settles to what the call used at
 * its end (providers.md), so a call is charged one request, its input estimate, its maximum in
 * output and both in total tokens, every token count trued up.
 *
 * <p>Bedrock sends no rate-limit headers: its limits are configured (per model, per region by a
 * provider entry per regional host) or learned from its 429s. Nothing here changes a request: the
 * SDK signed it, and any signed header changed would void the signature. Stateless and
 * thread-safe.
 */
public final class BedrockAdapter implements ProviderAdapter {

    /** The kind named in config. */
    public static final String KIND = "bedrock";

    private static final String SIGV4 = "AWS4-HMAC-SHA256";
    private static final String CREDENTIAL = "Credential=";

    private final LongSupplier wallClockMillis;

    /** An adapter on the system wall clock. */
    public BedrockAdapter() {
        this(System::currentTimeMillis);
    }

    /** @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams */
    public BedrockAdapter(LongSupplier wallClockMillis) {
        this.wallClockMillis = wallClockMillis;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public boolean recognisesHost(String host) {
        return BedrockPath.regionOfHost(HostNames.bare(host)) != null;
    }

    @Override
    public boolean recognises(String host, String path) {
        return recognisesHost(host) && BedrockPath.of(path) != null;
    }

    @Override
    public boolean governsPath(String path) {
        return BedrockPath.of(path) != null;
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        if (request == null) {
            return RequestFacts.builder(KIND).build();
        }
        BedrockPath route = BedrockPath.of(request.path());
        Headers headers = request.headers();
        String authorization = headers.first("authorization");
        String region = BedrockPath.regionOfHost(HostNames.bare(request.host()));
        if (region == null) {
            region = credentialPart(authorization, 2);
        }
        String keyId = ApiKeyIds.of(credentialPart(authorization, 0));
        RequestFacts.Builder facts = RequestFacts.builder(KIND)
                .operation(route == null ? "unknown" : route.operation)
                .model(route == null ? null : route.model)
                .streaming(route != null && route.streams())
                .apiKeyId(keyId != null ? keyId : ApiKeyIds.fromBearer(headers))
                .providerScope("region", BedrockPath.isRegion(region) ? region : null);
        BedrockRequestBody body = BedrockRequestBody.read(request.body(), request.bodyLength());
        long input = body.estimateInputTokens(estimator, route == null ? null : route.model);
        long max = body.maxTokens();
        facts.maxOutputTokens(max)
                .estimatedInputTokens(input)
                .providerCharge(Dimension.REQUESTS, 1)
                .providerCharge(Dimension.INPUT_TOKENS, input);
        if (max >= 0) {
            // without a maximum Bedrock reserves the model's own default, which the body does not say
            facts.providerCharge(Dimension.OUTPUT_TOKENS, max).providerCharge(Dimension.TOTAL_TOKENS, input + max);
        }
        return facts.build();
    }

    /**
     * A part of a SigV4 {@code Authorization} header's credential scope ({@code 0} the access key
     * id, {@code 2} the region), or null when the header is not a SigV4 one.
     */
    static String credentialPart(String authorization, int index) {
        if (authorization == null || !authorization.regionMatches(true, 0, SIGV4, 0, SIGV4.length())) {
            return null;
        }
        int at = authorization.indexOf(CREDENTIAL, SIGV4.length());
        if (at < 0) {
            return null;
        }
        int start = at + CREDENTIAL.length();
        int end = start;
        while (end < authorization.length() && authorization.charAt(end) != ',' && authorization.charAt(end) != ' ') {
            end++;
        }
        String[] scope = authorization.substring(start, end).split("/", -1);
        return index < scope.length && !scope[index].isEmpty() ? scope[index] : null;
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return BedrockUsage.parser(facts, responseHeaders, estimator, wallClockMillis.getAsLong());
    }

    /** Bedrock sends no rate-limit headers: its limits are configured or learned from its 429s. */
    @Override
    public RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis) {
        return RateLimitSnapshot.none();
    }

    @Override
    public ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        return BedrockErrors.classify(status, headers, body, nowEpochMillis);
    }

    @Override
    public LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return BedrockLocalRejection.answer(rejection, facts);
    }

    /** Bedrock settles its token quota to what the call used: input, output and their total. */
    @Override
    public boolean truesUp(Dimension dimension) {
        return dimension == Dimension.INPUT_TOKENS
                || dimension == Dimension.OUTPUT_TOKENS
                || dimension == Dimension.TOTAL_TOKENS;
    }

    /** Its answers carry no rate-limit headers: its 429s set the pace. */
    @Override
    public boolean announcesLimits() {
        return false;
    }
}
