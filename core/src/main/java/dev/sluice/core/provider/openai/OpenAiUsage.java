package dev.sluice.core.provider.openai;

import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.sse.SseUsageParser;

/** Chooses the usage parser for an OpenAI-format answer: event stream or JSON document. Shared by OpenAI, Azure and compatible adapters. */
public final class OpenAiUsage {

    private OpenAiUsage() {}

    /**
     * A parser for the answer to a request with these facts. The response's {@code content-type}
     * decides between SSE and JSON; without one, whether the request asked to stream.
     *
     * @param nowEpochMillis when the answer started, to turn wait hints in stream errors into waits
     */
    public static UsageParser parser(
            RequestFacts facts, Headers responseHeaders, TokenEstimator estimator, long nowEpochMillis) {
        RequestFacts f = facts != null ? facts : RequestFacts.builder("openai").build();
        String contentType = responseHeaders == null ? null : responseHeaders.first("content-type");
        boolean stream = contentType == null ? f.streaming() : SseUsageParser.isEventStream(contentType);
        return stream
                ? new OpenAiStreamUsage(f, estimator, nowEpochMillis)
                : OpenAiJsonAnswer.parser(
                        f,
                        estimator,
                        BoundedBody.DEFAULT_CAP,
                        responseHeaders == null ? -1 : responseHeaders.contentLength());
    }
}
