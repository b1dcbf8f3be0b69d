package dev.sluice.core.provider.anthropic;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.sse.SseUsageParser;
import java.io.IOException;

/**
 * Reads usage from a Messages event stream: {@code message_start.message.usage} has the input side
 * (and a first output count), {@code message_delta.usage.output_tokens} is cumulative (the last
 * one wins), and an {@code error} event ({@code overloaded_error}, usually) is a mid-stream
 * failure. Every {@code content_block_delta} (text, thinking, tool-call JSON) is counted as it
 * passes, so a stream that breaks before its {@code message_delta} settles with the reported input
 * and at least the output it visibly produced. Never throws; a fault inside stops parsing and keeps
 * what was counted.
 */
final class AnthropicStreamUsage extends SseUsageParser {

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final long nowEpochMillis;
    private final AnthropicUsageTally tally = new AnthropicUsageTally();
    private final EventReader event = new EventReader();
    private boolean sawFinalUsage;
    private ProviderError streamError;
    private String model;

    AnthropicStreamUsage(RequestFacts facts, TokenEstimator estimator, long nowEpochMillis) {
        this.facts = facts;
        this.estimator = estimator;
        this.nowEpochMillis = nowEpochMillis;
    }

    @Override
    public Usage usage() {
        return tally.toUsage(facts, estimator, sawFinalUsage);
    }

    @Override
    public String responseModel() {
        return model;
    }

    @Override
    public ProviderError streamError() {
        return streamError;
    }

    @Override
    protected void onEvent(String name, byte[] data, int offset, int length) {
        if (length == 0) {
            return;
        }
        event.reset();
        walk(data, offset, length, event);
        String type = event.type != null ? event.type : name;
        if ("message_delta".equals(type) && event.sawUsage) {
            sawFinalUsage = true;
        }
        if ("error".equals(type) && streamError == null) {
            streamError = AnthropicErrors.classifyStreamError(
                    event.errorType, event.errorMessage, event.errorCode, nowEpochMillis);
        }
    }

    /** Reads one event's JSON; reused across events. */
    private final class EventReader implements JsonVisitor {
        String type;
        boolean sawUsage;
        String errorType;
        String errorMessage;
        String errorCode;

        void reset() {
            type = errorType = errorMessage = errorCode = null;
            sawUsage = false;
        }

        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            switch (path) {
                case "type":
                    type = JsonScalars.text(p);
                    return;
                case "delta.text":
                case "delta.partial_json":
                case "delta.thinking":
                case "content_block.text":
                    tally.generated(JsonScalars.stringLength(p));
                    return;
                case "error.type":
                    errorType = JsonScalars.text(p);
                    return;
                case "error.message":
                    errorMessage = JsonScalars.text(p);
                    return;
                case "error.details.error_code":
                    errorCode = JsonScalars.text(p);
                    return;
                case "message.model": // message_start
                    if (model == null) {
                        model = JsonScalars.name(p);
                    }
                    return;
                default:
            }
            if (path.startsWith("message.usage.")) {
                tally.usageField(path.substring(14), p);
            } else if (path.startsWith("usage.")) {
                sawUsage = true;
                tally.usageField(path.substring(6), p);
            }
        }

        @Override
        public boolean enter(String path) {
            // message_start repeats the message: its content is empty, but skip it on principle
            return !path.equals("message.content");
        }
    }
}
