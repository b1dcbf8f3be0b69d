package dev.sluice.core.provider.bedrock;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.wire.HeaderNumbers;

/**
 * Chooses the usage parser for a Bedrock answer: InvokeModel's usage headers when the answer has
 * them (the body is then not read), an event stream when the {@code content-type} says so (or, with
 * none, when the path streams), else the JSON body.
 */
final class BedrockUsage {

    static final String EVENT_STREAM = "application/vnd.amazon.eventstream";
    static final String INPUT_HEADER = "x-amzn-bedrock-input-token-count";
    static final String OUTPUT_HEADER = "x-amzn-bedrock-output-token-count";
    static final String CACHE_READ_HEADER = "x-amzn-bedrock-cache-read-input-token-count";
    static final String CACHE_WRITE_HEADER = "x-amzn-bedrock-cache-write-input-token-count";

    private BedrockUsage() {}

    static UsageParser parser(
            RequestFacts facts, Headers responseHeaders, TokenEstimator estimator, long nowEpochMillis) {
        RequestFacts f = facts != null
                ? facts
                : RequestFacts.builder(BedrockAdapter.KIND).build();
        Headers h = responseHeaders == null ? Headers.empty() : responseHeaders;
        String contentType = h.first("content-type");
        boolean stream = contentType == null ? f.streaming() : isEventStream(contentType);
        if (!stream) {
            Usage inHeaders = fromHeaders(h, f);
            if (inHeaders != null) {
                return new Reported(inHeaders);
            }
        }
        return stream
                ? new BedrockStreamUsage(f, estimator, nowEpochMillis)
                : BedrockJsonAnswer.parser(f, estimator, BoundedBody.DEFAULT_CAP, h.contentLength());
    }

    /** Whether a {@code content-type} names the AWS event stream, in any case and with any parameters. */
    static boolean isEventStream(String contentType) {
        for (int i = 0; i <= contentType.length() - EVENT_STREAM.length(); i++) {
            if (contentType.regionMatches(true, i, EVENT_STREAM, 0, EVENT_STREAM.length())) {
                return true;
            }
        }
        return false;
    }

    /** The usage InvokeModel's headers report, or null when the answer has none. */
    static Usage fromHeaders(Headers headers, RequestFacts facts) {
        long input = count(headers.first(INPUT_HEADER));
        long output = count(headers.first(OUTPUT_HEADER));
        if (input < 0 && output < 0) {
            return null;
        }
        BedrockUsageTally tally = new BedrockUsageTally();
        tally.report(BedrockUsageTally.INPUT, input);
        tally.report(BedrockUsageTally.OUTPUT, output);
        tally.report(BedrockUsageTally.CACHE_READ, count(headers.first(CACHE_READ_HEADER)));
        tally.report(BedrockUsageTally.CACHE_WRITE, count(headers.first(CACHE_WRITE_HEADER)));
        return tally.toUsage(facts, null, true);
    }

    private static long count(String value) {
        return HeaderNumbers.count(value); // unknown (-1) when absent or not a count
    }

    /** The usage the headers reported: the body is not read. */
    private static final class Reported implements UsageParser {
        private final Usage usage;

        Reported(Usage usage) {
            this.usage = usage;
        }

        @Override
        public void accept(byte[] chunk, int offset, int length) {}

        @Override
        public void finish() {}

        @Override
        public Usage usage() {
            return usage;
        }

        @Override
        public ProviderError streamError() {
            return null;
        }
    }
}
