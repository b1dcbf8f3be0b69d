package dev.sluice.core.provider.anthropic;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.JsonWalker;
import java.io.IOException;

/**
 * What a Messages API request body says that admission needs: the model, {@code max_tokens},
 * whether it streams, and how much prompt it carries.
 *
 * <p>The prompt is weighed from the text the model reads: {@code system} (a string or text
 * blocks), each message's {@code content} (a string or blocks: {@code text}, the {@code input} of
 * {@code tool_use} blocks as JSON, the {@code content} of {@code tool_result} blocks), and the JSON
 * of {@code tools} definitions, which Anthropic renders into the prompt. Images and PDFs are not
 * counted (their base64 is not text and their cost is not in the body); neither are earlier
 * turns' {@code thinking} blocks, which Anthropic strips from the context.
 */
final class AnthropicRequestBody {

    private String model;
    private long maxTokens = RequestFacts.NO_MAX;
    private boolean stream;
    private long promptCharacters;
    private int parts;

    private AnthropicRequestBody() {}

    /**
     * Reads the body in {@code body}'s first {@code length} bytes; a null, empty or malformed body
     * reads as what could be read (possibly nothing).
     */
    static AnthropicRequestBody read(byte[] body, int length) {
        AnthropicRequestBody read = new AnthropicRequestBody();
        JsonWalker.walk(body, 0, length, read.new Reader());
        return read;
    }

    String model() {
        return model;
    }

    /** {@code max_tokens} (required by the API), or {@link RequestFacts#NO_MAX}. */
    long maxTokens() {
        return maxTokens;
    }

    boolean stream() {
        return stream;
    }

    long promptCharacters() {
        return promptCharacters;
    }

    int parts() {
        return parts;
    }

    /** The input estimate for the whole prompt, cached or not: Anthropic counts cache writes too, and which part will be read from cache is not known before the call. */
    long estimateInputTokens(TokenEstimator estimator) {
        long tokens = estimator == null
                ? (promptCharacters + 3) / 4 + parts * 4L
                : estimator.estimateInputTokens(model, promptCharacters, parts);
        return Math.max(1, tokens);
    }

    /** Reads the fields above in one pass over the body. */
    private final class Reader implements JsonVisitor {

        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            switch (path) {
                case "model":
                    model = JsonScalars.text(p);
                    return;
                case "max_tokens":
                    maxTokens = Math.max(maxTokens, JsonScalars.count(p));
                    return;
                case "stream":
                    stream = JsonScalars.isTrue(p);
                    return;
                case "system":
                    if (p.currentToken() == JsonToken.VALUE_STRING) {
                        parts++;
                        promptCharacters += p.getTextLength();
                    }
                    return;
                case "system[].text":
                case "messages[].content":
                case "messages[].content[].text":
                case "messages[].content[].name":
                case "messages[].content[].content":
                case "messages[].content[].content[].text":
                    promptCharacters += JsonScalars.stringLength(p);
                    return;
                default:
            }
        }

        @Override
        public boolean enter(String path) {
            switch (path) {
                case "system[]":
                case "messages[]":
                    parts++;
                    return true;
                case "tools[]":
                    parts++;
                    return false; // weighed by its JSON length in skipped()
                case "messages[].content[].input":
                    return false; // a tool call's arguments, weighed by their JSON length
                case "messages[].content[].source":
                case "messages[].content[].content[].source":
                case "metadata":
                    return false; // images, documents, metadata: not prompt text
                default:
                    return true;
            }
        }

        @Override
        public void skipped(String path, long length) {
            if (path.equals("tools[]") || path.equals("messages[].content[].input")) {
                promptCharacters += length;
            }
        }
    }
}
