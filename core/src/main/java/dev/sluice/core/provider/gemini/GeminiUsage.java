package dev.sluice.core.provider.gemini;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.sse.SseUsageParser;

/**
 * Chooses the usage parser for a Gemini or Vertex answer. The {@code content-type} decides (SSE
 * for {@code alt=sse}, JSON for a single answer or the array stream); without one, the first byte
 * that is not white space does: {@code [} or <code>{</code> is JSON, anything else an event stream.
 */
final class GeminiUsage {

    private GeminiUsage() {}

    static UsageParser parser(
            RequestFacts facts, Headers responseHeaders, TokenEstimator estimator, String kind, long nowEpochMillis) {
        RequestFacts f = facts != null ? facts : RequestFacts.builder(kind).build();
        String contentType = responseHeaders == null ? null : responseHeaders.first("content-type");
        if (contentType == null) {
            return new Sniffing(f, estimator, nowEpochMillis);
        }
        return SseUsageParser.isEventStream(contentType)
                ? new GeminiStreamUsage(f, estimator, nowEpochMillis)
                : GeminiJsonAnswer.parser(
                        f, estimator, nowEpochMillis, BoundedBody.DEFAULT_CAP, responseHeaders.contentLength());
    }

    /** Decides between JSON and SSE on the first significant byte, then delegates. */
    static final class Sniffing implements UsageParser {
        private final RequestFacts facts;
        private final TokenEstimator estimator;
        private final long nowEpochMillis;
        private UsageParser delegate;

        Sniffing(RequestFacts facts, TokenEstimator estimator, long nowEpochMillis) {
            this.facts = facts;
            this.estimator = estimator;
            this.nowEpochMillis = nowEpochMillis;
        }

        @Override
        public void accept(byte[] chunk, int offset, int length) {
            if (delegate == null && chunk != null && offset >= 0 && length > 0 && offset <= chunk.length - length) {
                for (int i = offset; i < offset + length && delegate == null; i++) {
                    byte b = chunk[i];
                    if (b == '[' || b == '{') {
                        delegate =
                                GeminiJsonAnswer.parser(facts, estimator, nowEpochMillis, BoundedBody.DEFAULT_CAP, -1);
                    } else if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                        delegate = new GeminiStreamUsage(facts, estimator, nowEpochMillis);
                    }
                }
            }
            if (delegate != null) {
                delegate.accept(chunk, offset, length);
            }
        }

        @Override
        public void finish() {
            if (delegate != null) {
                delegate.finish();
            }
        }

        @Override
        public Usage usage() {
            return delegate != null
                    ? delegate.usage()
                    : Usage.builder()
                            .inputTokens(facts.estimatedInputTokens())
                            .reportedByProvider(false)
                            .build();
        }

        @Override
        public String responseModel() {
            return delegate == null ? null : delegate.responseModel();
        }

        @Override
        public ProviderError streamError() {
            return delegate == null ? null : delegate.streamError();
        }
    }
}
