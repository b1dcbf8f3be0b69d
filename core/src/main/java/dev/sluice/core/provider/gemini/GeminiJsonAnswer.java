package dev.sluice.core.provider.gemini;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.JsonBodyUsage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.BoundedBody;

/**
 * What a JSON Gemini answer tells of its usage: one {@code GenerateContentResponse}, or the JSON
 * array of them that {@code streamGenerateContent} returns without {@code alt=sse} (the last
 * {@code usageMetadata} wins). A truncated array still yields the chunks before the break, and may
 * end with an error element.
 */
final class GeminiJsonAnswer implements JsonBodyUsage.Answer {

    private final long nowEpochMillis;
    private final GeminiUsageTally tally = new GeminiUsageTally();
    private final GeminiResponseReader reader = new GeminiResponseReader(tally);
    private boolean whole;

    private GeminiJsonAnswer(long nowEpochMillis) {
        this.nowEpochMillis = nowEpochMillis;
    }

    /**
     * The usage parser of a JSON answer to a request with these facts.
     *
     * @param nowEpochMillis when the answer started, to turn a wait hint in an error element into a wait
     */
    static JsonBodyUsage parser(
            RequestFacts facts, TokenEstimator estimator, long nowEpochMillis, int capBytes, long expectedBytes) {
        return new JsonBodyUsage(facts, estimator, capBytes, expectedBytes, new GeminiJsonAnswer(nowEpochMillis));
    }

    @Override
    public void read(BoundedBody body) {
        whole = body.walk(reader);
    }

    @Override
    public Usage usage(RequestFacts facts, TokenEstimator estimator) {
        return tally.toUsage(facts, estimator, whole);
    }

    @Override
    public String responseModel() {
        return reader.modelVersion;
    }

    /** An array stream may end with an error element; a single answer with status 2xx carries none. */
    @Override
    public ProviderError streamError() {
        return reader.error == null ? null : GeminiErrors.classifyStreamError(reader.error, nowEpochMillis);
    }
}
