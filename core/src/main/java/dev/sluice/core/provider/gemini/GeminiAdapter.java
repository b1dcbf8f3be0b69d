package dev.sluice.core.provider.gemini;

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
import dev.sluice.core.provider.wire.HostNames;
import java.util.function.LongSupplier;

/**
 * The Gemini API ({@code generativelanguage.googleapis.com}): {@code generateContent} and
 * {@code streamGenerateContent} (SSE with {@code alt=sse}, a JSON array without), the model named
 * in the path. A request is charged one request and its input estimate, as Gemini counts RPM, RPD
 * and input TPM (providers.md); the key id comes from {@code x-goog-api-key} or the {@code key}
 * query parameter, hashed. Gemini sends no rate-limit headers: its limits are learned from 429s
 * and configuration only. Stateless and thread-safe.
 */
public final class GeminiAdapter implements ProviderAdapter {

    /** The kind named in config. */
    public static final String KIND = "gemini";

    private static final String HOST = "generativelanguage.googleapis.com";

    private final LongSupplier wallClockMillis;

    /** An adapter on the system wall clock. */
    public GeminiAdapter() {
        this(System::currentTimeMillis);
    }

    /** @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams */
    public GeminiAdapter(LongSupplier wallClockMillis) {
        this.wallClockMillis = wallClockMillis;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public boolean recognises(String host, String path) {
        return HOST.equals(HostNames.bare(host)) && GeminiPath.gemini(path) != null;
    }

    @Override
    public boolean governsPath(String path) {
        return GeminiPath.gemini(path) != null;
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        if (request == null) {
            return RequestFacts.builder(KIND).build();
        }
        return GeminiProtocol.read(KIND, request, GeminiPath.gemini(request.path()), estimator);
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return GeminiUsage.parser(facts, responseHeaders, estimator, KIND, wallClockMillis.getAsLong());
    }

    /** Gemini sends no rate-limit headers. */
    @Override
    public RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis) {
        return RateLimitSnapshot.none();
    }

    @Override
    public ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        return GeminiErrors.classify(status, headers, body, nowEpochMillis);
    }

    @Override
    public LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return GeminiLocalRejection.answer(rejection, facts);
    }

    /** Gemini counts the prompt it really tokenized, of which Sluice's figure is an estimate. */
    @Override
    public boolean truesUp(Dimension dimension) {
        return dimension == Dimension.INPUT_TOKENS;
    }
}
