package dev.sluice.core.provider.bedrock;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.eventstream.EventStreamDecoder;
import dev.sluice.core.provider.eventstream.EventStreamHeaders;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.JsonWalker;
import java.io.IOException;
import java.util.Base64;

/**
 * Reads usage from a Bedrock event stream ({@code application/vnd.amazon.eventstream}), one
 * decoded message at a time, holding at most one message:
 *
 * <ul>
 *   <li>ConverseStream: the {@code metadata} event's {@code usage} is the report; each
 *       {@code contentBlockDelta} ({@code delta.text}, {@code delta.toolUse.input},
 *       {@code delta.reasoningContent.text}) is counted as it passes.
 *   <li>InvokeModelWithResponseStream: each {@code chunk} event carries the model's own event as
 *       base64 in {@code bytes}; the last one carries {@code amazon-bedrock-invocationMetrics}
 *       (the report). An Anthropic model's {@code message_start} and {@code message_delta} usage
 *       and its text deltas are read too.
 *   <li>A message of type {@code exception} ({@code throttlingException},
 *       {@code modelStreamErrorException}, ...) is a failure inside the stream.
 * </ul>
 *
 * A stream that breaks before its report settles with what was reported and at least the output
 * it visibly produced. Never throws; a fault inside stops parsing and keeps what was counted.
 */
final class BedrockStreamUsage implements UsageParser, EventStreamDecoder.Listener {

    /** The longest message read; a longer one (no usage event is near this) is passed over. */
    static final int MAX_MESSAGE_BYTES = 1 << 20;

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final long nowEpochMillis;
    private final EventStreamDecoder decoder = new EventStreamDecoder(this, MAX_MESSAGE_BYTES);
    private final JsonWalker walker = new JsonWalker();
    private final BedrockUsageTally tally = new BedrockUsageTally();
    private final EventReader event = new EventReader();
    private final ChunkReader chunk = new ChunkReader();
    private boolean sawReport;
    private boolean broken;
    private ProviderError streamError;

    BedrockStreamUsage(RequestFacts facts, TokenEstimator estimator, long nowEpochMillis) {
        this.facts = facts;
        this.estimator = estimator;
        this.nowEpochMillis = nowEpochMillis;
    }

    @Override
    public void accept(byte[] bytes, int offset, int length) {
        if (broken) {
            return;
        }
        try {
            decoder.feed(bytes, offset, length);
        } catch (RuntimeException fault) {
            broken = true; // fail open: the call goes on, settlement uses what was counted
        }
    }

    @Override
    public void finish() {
        // nothing buffered to flush: a message cut short was never whole
    }

    @Override
    public Usage usage() {
        return tally.toUsage(facts, estimator, sawReport);
    }

    @Override
    public ProviderError streamError() {
        return streamError;
    }

    @Override
    public void onMessage(EventStreamHeaders headers, byte[] buffer, int offset, int length) {
        String messageType = headers.get(EventStreamHeaders.MESSAGE_TYPE);
        if ("exception".equals(messageType) || "error".equals(messageType)) {
            if (streamError == null) {
                String type = headers.get(EventStreamHeaders.EXCEPTION_TYPE);
                event.reset();
                walker.walkNext(buffer, offset, length, event);
                streamError = BedrockErrors.classifyStreamError(
                        type != null ? type : headers.get(EventStreamHeaders.ERROR_CODE),
                        event.message,
                        nowEpochMillis);
            }
            return;
        }
        String eventType = headers.get(EventStreamHeaders.EVENT_TYPE);
        if (eventType == null || length == 0) {
            return;
        }
        switch (eventType) {
            case "metadata":
            case "contentBlockDelta":
                event.reset();
                walker.walkNext(buffer, offset, length, event);
                if (event.sawUsage) {
                    sawReport = true;
                }
                return;
            case "chunk":
                event.reset();
                walker.walkNext(buffer, offset, length, event);
                if (event.bytes != null) {
                    byte[] inner = decode(event.bytes);
                    if (inner != null) {
                        chunk.sawMetrics = false;
                        JsonWalker.walk(inner, 0, inner.length, chunk);
                        if (chunk.sawMetrics) {
                            sawReport = true;
                        }
                    }
                }
                return;
            default:
        }
    }

    private static byte[] decode(String base64) {
        try {
            return Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }

    /** One event's JSON: Converse's deltas and metadata, a chunk's {@code bytes}, an exception's message. */
    private final class EventReader implements JsonVisitor {
        boolean sawUsage;
        String bytes;
        String message;

        void reset() {
            sawUsage = false;
            bytes = null;
            message = null;
        }

        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            switch (path) {
                case "delta.text":
                case "delta.toolUse.input":
                case "delta.reasoningContent.text":
                    tally.generated(JsonScalars.stringLength(p));
                    return;
                case "bytes":
                    bytes = JsonScalars.text(p);
                    return;
                case "message":
                case "Message":
                    message = JsonScalars.text(p);
                    return;
                default:
            }
            if (path.startsWith("usage.")) {
                sawUsage = true;
                tally.usageField(path.substring(6), p);
            }
        }
    }

    /** The model's own event inside a chunk: Bedrock's invocation metrics, Anthropic's usage and deltas. */
    private final class ChunkReader implements JsonVisitor {
        private static final String METRICS = "amazon-bedrock-invocationMetrics.";
        boolean sawMetrics;

        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            if (path.startsWith(METRICS)) {
                int slot = BedrockUsageTally.slotOf(path.substring(METRICS.length()));
                if (slot >= 0) {
                    sawMetrics = true;
                    tally.report(slot, JsonScalars.count(p));
                }
            } else if (path.startsWith("message.usage.")) {
                tally.usageField(path.substring(14), p); // message_start: the input side
            } else if (path.startsWith("usage.")) {
                tally.usageField(path.substring(6), p); // message_delta: cumulative output
            } else if (path.equals("delta.text")
                    || path.equals("delta.partial_json")
                    || path.equals("delta.thinking")) {
                tally.generated(JsonScalars.stringLength(p));
            }
        }

        @Override
        public boolean enter(String path) {
            return !path.equals("message.content");
        }
    }
}
