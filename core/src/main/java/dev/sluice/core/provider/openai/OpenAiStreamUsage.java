package dev.sluice.core.provider.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.sse.SseEventReader;
import dev.sluice.core.provider.sse.SseUsageParser;
import java.io.IOException;

/**
 * Reads usage from an OpenAI-format event stream, in each of its shapes:
 *
 * <ul>
 *   <li>Chat Completions / Completions: {@code data:} chunks, the usage chunk ({@code "choices":
 *       []}) just before {@code data: [DONE]} when {@code stream_options.include_usage} was set;
 *       a chunk carrying {@code error} is a mid-stream failure.
 *   <li>Groq also reports usage in its last chunk's {@code x_groq.usage} when
 *       {@code include_usage} was not asked for.
 *   <li>Responses API: typed events; {@code response.completed} (or {@code .incomplete},
 *       {@code .failed}) carries {@code response.usage}; {@code response.failed} and {@code error}
 *       events are failures.
 * </ul>
 *
 * Every text delta (content, refusals, reasoning, tool-call arguments) is counted as it passes, so
 * a stream that never reports usage (not requested, broken, cancelled) still settles with counted
 * output. Never throws; a fault inside stops parsing and keeps what was counted.
 */
final class OpenAiStreamUsage extends SseUsageParser {

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final long nowEpochMillis;
    private final OpenAiUsageTally tally = new OpenAiUsageTally();
    private final EventReader event = new EventReader();
    private ProviderError streamError;
    private String model;

    OpenAiStreamUsage(RequestFacts facts, TokenEstimator estimator, long nowEpochMillis) {
        this.facts = facts;
        this.estimator = estimator;
        this.nowEpochMillis = nowEpochMillis;
    }

    @Override
    public Usage usage() {
        return tally.toUsage(facts, estimator);
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
        if (length == 0 || isDone(data, offset, length)) {
            return;
        }
        event.reset();
        walk(data, offset, length, event);
        String type = event.type != null ? event.type : SseEventReader.DEFAULT_NAME.equals(name) ? null : name;
        if (type != null && type.endsWith(".delta") && !type.contains("audio")) {
            tally.generated(event.deltaCharacters);
        }
        if (streamError == null) {
            OpenAiErrorBody error = event.error(type);
            if (error != null) {
                streamError = OpenAiErrors.classifyStreamError(error, nowEpochMillis);
            }
        }
    }

    /** Reads one event's JSON; reused across events. */
    private final class EventReader implements JsonVisitor {
        String type;
        long deltaCharacters;
        boolean sawError;
        String code;
        String errorType;
        String message;
        String nestedCode;
        String nestedType;
        String nestedMessage;

        void reset() {
            type = null;
            deltaCharacters = 0;
            sawError = false;
            code = errorType = message = nestedCode = nestedType = nestedMessage = null;
        }

        @Override
        public boolean enter(String path) {
            if (path.equals("error") || path.equals("response.error")) {
                sawError = true;
            }
            return true;
        }

        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            if (path.startsWith("usage.")) {
                tally.usageField(path.substring(6), p);
            } else if (path.startsWith("response.usage.")) {
                tally.usageField(path.substring(15), p);
            } else if (path.startsWith("x_groq.usage.")) {
                tally.usageField(path.substring(13), p); // Groq's final chunk without stream_options
            } else if (path.startsWith("choices[].")) {
                generated(path, p); // the whole path: no substring per chunk
            } else {
                other(path, p);
            }
        }

        private void generated(String path, JsonParser p) throws IOException {
            switch (path) {
                case "choices[].delta.content":
                case "choices[].delta.refusal":
                case "choices[].delta.reasoning_content":
                case "choices[].delta.reasoning":
                case "choices[].delta.tool_calls[].function.arguments":
                case "choices[].delta.function_call.arguments":
                case "choices[].text":
                    tally.generated(JsonScalars.stringLength(p));
                    return;
                default:
            }
        }

        private void other(String path, JsonParser p) throws IOException {
            switch (path) {
                case "type":
                    type = JsonScalars.text(p);
                    return;
                case "model": // every chunk; Azure's first one with "" (its content filter's)
                case "response.model": // the Responses API's response.created, .completed...
                    if (model == null) {
                        model = JsonScalars.name(p);
                    }
                    return;
                case "delta":
                    deltaCharacters += JsonScalars.stringLength(p);
                    return;
                case "code":
                    code = JsonScalars.text(p);
                    return;
                case "message":
                    message = JsonScalars.text(p);
                    return;
                case "error.code":
                case "response.error.code":
                    nestedCode = JsonScalars.text(p);
                    return;
                case "error.type":
                case "response.error.type":
                    nestedType = JsonScalars.text(p);
                    return;
                case "error.message":
                case "response.error.message":
                    nestedMessage = JsonScalars.text(p);
                    return;
                default:
                    if (path.equals("error") && p.currentToken() == JsonToken.VALUE_STRING) {
                        sawError = true; // some compatible servers send "error": "text"
                        nestedMessage = p.getText();
                    }
            }
        }

        /** The failure this event reports, or null: an {@code error} event, {@code response.failed}, or a chunk with an {@code error} object. */
        OpenAiErrorBody error(String eventType) {
            if ("error".equals(eventType)) {
                return OpenAiErrorBody.of(
                        firstNonNull(nestedMessage, message), nestedType, firstNonNull(nestedCode, code));
            }
            if ("response.failed".equals(eventType) || (eventType == null && sawError)) {
                return OpenAiErrorBody.of(nestedMessage, nestedType, nestedCode);
            }
            return null;
        }

        private String firstNonNull(String a, String b) {
            return a != null ? a : b;
        }
    }
}
