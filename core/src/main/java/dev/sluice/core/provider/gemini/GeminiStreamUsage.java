package dev.sluice.core.provider.gemini;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.sse.SseUsageParser;

/**
 * Reads usage from {@code streamGenerateContent?alt=sse}: each {@code data:} event is a
 * {@code GenerateContentResponse}; the last {@code usageMetadata} is authoritative, and the chunk
 * carrying a {@code finishReason} is the last. Generated text is counted as it passes, so a stream
 * that breaks early settles with at least the output it visibly produced. An event carrying
 * {@code error} is a mid-stream failure. Never throws.
 */
final class GeminiStreamUsage extends SseUsageParser {

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final long nowEpochMillis;
    private final GeminiUsageTally tally = new GeminiUsageTally();
    private final GeminiResponseReader reader = new GeminiResponseReader(tally);

    GeminiStreamUsage(RequestFacts facts, TokenEstimator estimator, long nowEpochMillis) {
        this.facts = facts;
        this.estimator = estimator;
        this.nowEpochMillis = nowEpochMillis;
    }

    @Override
    public Usage usage() {
        return tally.toUsage(facts, estimator, false);
    }

    @Override
    public String responseModel() {
        return reader.modelVersion;
    }

    @Override
    public ProviderError streamError() {
        return reader.error == null ? null : GeminiErrors.classifyStreamError(reader.error, nowEpochMillis);
    }

    @Override
    protected void onEvent(String name, byte[] data, int offset, int length) {
        if (length != 0 && !isDone(data, offset, length)) {
            walk(data, offset, length, reader);
        }
    }
}
