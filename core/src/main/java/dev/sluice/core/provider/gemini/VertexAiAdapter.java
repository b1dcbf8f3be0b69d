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
 * Gemini on Vertex AI ({@code aiplatform.googleapis.com} and the regional
 * {@code <region>-aiplatform.googleapis.com}):
 * {@code /v1/projects/{p}/locations/{l}/publishers/google/models/{model}:generateContent} and
 * {@code :streamGenerateContent}, tuned-model endpoints, and express mode's
 * {@code /v1beta1/publishers/google/models/{model}:...}. Same body, usage and error formats as the
 * Gemini API; its quota is per project, region and model, so the provider scope is the project and
 * location of the path. The key id is the hashed Bearer token (or an express-mode API key). No
 * rate-limit headers. Stateless and thread-safe.
 */
public final class VertexAiAdapter implements ProviderAdapter {

    /** The kind named in config. */
    public static final String KIND = "vertex-ai";

    private static final String GLOBAL_HOST = "aiplatform.googleapis.com";
    private static final String REGIONAL_SUFFIX = "-aiplatform.googleapis.com";

    private final LongSupplier wallClockMillis;

    /** An adapter on the system wall clock. */
    public VertexAiAdapter() {
        this(System::currentTimeMillis);
    }

    /** @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams */
    public VertexAiAdapter(LongSupplier wallClockMillis) {
        this.wallClockMillis = wallClockMillis;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public boolean recognises(String host, String path) {
        String h = HostNames.bare(host);
        boolean vertexHost = h.equals(GLOBAL_HOST) || (h.endsWith(REGIONAL_SUFFIX) && h.length() > REGIONAL_SUFFIX.length()
                && h.indexOf('.') > h.length() - REGIONAL_SUFFIX.length());
        return vertexHost && GeminiPath.vertex(path) != null;
    }

    @Override
    public boolean governsPath(String path) {
        return GeminiPath.vertex(path) != null;
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        if (request == null) {
            return RequestFacts.builder(KIND).build();
        }
        return GeminiProtocol.read(KIND, request, GeminiPath.vertex(request.path()), estimator);
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return GeminiUsage.parser(facts, responseHeaders, estimator, KIND, wallClockMillis.getAsLong());
    }

    /** Vertex AI sends no rate-limit headers. */
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

    @Override
    public boolean truesUp(Dimension dimension) {
        return dimension == Dimension.INPUT_TOKENS;
    }
}
