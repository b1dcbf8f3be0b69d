package dev.sluice.core.provider.gemini;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.json.BoundedBody;

/**
 * Reads usage from a JSON answer: one {@code GenerateContentResponse}, or the JSON array of them
 * that {@code streamGenerateContent} returns without {@code alt=sse} (the last
 * {@code usageMetadata} wins). The body is kept up to a cap and read when it ends; a truncated
 * array still yields the chunks before the break. Past the cap the body's size counts as output,
 * capped by the request's maximum. Never throws.
 */
final class GeminiBodyUsage implements UsageParser {

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final long nowEpochMillis;
    private final BoundedBody body;
    private final GeminiUsageTally tally = new GeminiUsageTally();
    private final GeminiResponseReader reader = new GeminiResponseReader(tally);
    private boolean finished;
    private boolean whole;

    GeminiBodyUsage(
            RequestFacts facts, TokenEstimator estimator, long nowEpochMillis, int capBytes, long expectedBytes) {
        this.facts = facts;
        this.estimator = estimator;
        this.nowEpochMillis = nowEpochMillis;
        this.body = new BoundedBody(capBytes, expectedBytes);
    }

    @Override
    public void accept(byte[] chunk, int offset, int length) {
        if (!finished) {
            body.append(chunk, offset, length);
        }
    }

    @Override
    public void adopt(byte[] bytes, int length) {
        if (!finished) {
            body.adopt(bytes, length);
        }
    }

    @Override
    public void finish() {
        if (!finished) {
            finished = true;
            whole = body.walk(reader);
        }
    }

    @Override
    public Usage usage() {
        if (!body.overflowed()) {
            return tally.toUsage(facts, estimator, whole);
        }
        return UsageParser.bySize(facts, estimator, body.bytesSeen());
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
