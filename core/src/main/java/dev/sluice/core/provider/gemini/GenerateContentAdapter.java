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
import java.util.function.LongSupplier;

/**
 * An adapter for Google's {@code generateContent} protocol, which the Gemini API and Vertex AI
 * both speak: the same body, usage, error and rejection formats, no rate-limit headers, and input
 * trued up to the prompt Google tokenized. A subclass says only where the protocol is served: the
 * hosts it recognises and how its paths name the model (and on Vertex, the project and location).
 * Stateless and thread-safe.
 */
abstract class GenerateContentAdapter implements ProviderAdapter {

    private final String kind;
    private final LongSupplier wallClockMillis;

    /** @param wallClockMillis epoch milliseconds, read only to date wait hints found inside streams */
    GenerateContentAdapter(String kind, LongSupplier wallClockMillis) {
        this.kind = kind;
        this.wallClockMillis = wallClockMillis;
    }

    /** The governed route this path names on this service, or null when it is not a generation call. */
    abstract GeminiPath route(String path);

    @Override
    public final String kind() {
        return kind;
    }

    @Override
    public final boolean governsPath(String path) {
        return route(path) != null;
    }

    @Override
    public final RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        if (request == null) {
            return RequestFacts.builder(kind).build();
        }
        return GeminiProtocol.read(kind, request, route(request.path()), estimator);
    }

    @Override
    public final UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return GeminiUsage.parser(facts, responseHeaders, estimator, kind, wallClockMillis.getAsLong());
    }

    /** Neither the Gemini API nor Vertex AI sends rate-limit headers: their limits are learned from 429s and config. */
    @Override
    public final RateLimitSnapshot readRateLimits(Headers responseHeaders, long nowEpochMillis) {
        return RateLimitSnapshot.none();
    }

    @Override
    public final ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        return GeminiErrors.classify(status, headers, body, nowEpochMillis);
    }

    @Override
    public final LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return GeminiLocalRejection.answer(rejection, facts);
    }

    /** Google counts the prompt it really tokenized, of which Sluice's figure is an estimate. */
    @Override
    public final boolean truesUp(Dimension dimension) {
        return dimension == Dimension.INPUT_TOKENS;
    }

    /** Its answers carry no rate-limit headers: its 429s set the pace. */
    @Override
    public boolean announcesLimits() {
        return false;
    }
}
