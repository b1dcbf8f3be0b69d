package dev.sluice.core.provider.anthropic;

import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.sse.SseUsageParser;

/** Chooses the usage parser for a Messages answer: event stream or JSON document. */
final class AnthropicUsage {

    private AnthropicUsage() {}

    /** The response's {@code content-type} decides; without one, whether the request asked to stream. */
    static UsageParser parser(
            RequestFacts facts, Headers responseHeaders, TokenEstimator estimator, long nowEpochMillis) {
        RequestFacts f = facts != null
                ? facts
                : RequestFacts.builder(AnthropicAdapter.KIND).build();
        String contentType = responseHeaders == null ? null : responseHeaders.first("content-type");
        boolean stream = contentType == null ? f.streaming() : SseUsageParser.isEventStream(contentType);
        return stream
                ? new AnthropicStreamUsage(f, estimator, nowEpochMillis)
                : AnthropicJsonAnswer.parser(
                        f,
                        estimator,
                        BoundedBody.DEFAULT_CAP,
                        responseHeaders == null ? -1 : responseHeaders.contentLength());
    }
}
