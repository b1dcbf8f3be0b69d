package dev.sluice.core.provider.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.JsonWalker;
import java.io.IOException;

/**
 * What an OpenAI-format request body says that admission needs: the model, the output cap, whether
 * it streams (and asks for the usage chunk), and how much prompt it carries. Shared by OpenAI,
 * Azure OpenAI and compatible servers, which all take this body.
 *
 * <p>The prompt is weighed from the text the model reads: message contents (strings and text
 * parts), Responses {@code input} (a string or items) and {@code instructions}, legacy
 * {@code prompt}, embeddings {@code input}, tool-call arguments in the history, and the JSON of
 * tool definitions and response schemas (the provider renders those into the prompt). Images and
 * audio are not counted: their base64 is not text, and their token cost is not in the body.
 * Pre-tokenized inputs (arrays of token ids) count one token per id.
 */
public final class OpenAiRequestBody {

    private String model;
    private String serviceTier;
    private long maxOutputTokens = RequestFacts.NO_MAX;
    private boolean stream;
    private boolean includeUsage;
    private long promptCharacters;
    private int parts;
    private long tokenIds;

    OpenAiRequestBody() {}

    /**
     * Reads a body; a null, empty or malformed body reads as what could be read (possibly nothing).
     * A chat request of the usual shape is read straight from its bytes ({@link PlainChatRequest});
     * any other body, and any it declines, is walked with jackson, with the same result.
     */
    public static OpenAiRequestBody read(byte[] body) {
        return read(body, body == null ? 0 : body.length);
    }

    /** {@link #read(byte[])} of the body in {@code body}'s first {@code length} bytes. */
    public static OpenAiRequestBody read(byte[] body, int length) {
        OpenAiRequestBody plain = new OpenAiRequestBody();
        return PlainChatRequest.read(body, length, plain) ? plain : walked(body, length);
    }

    /** Reads a body with a jackson walk, whatever its shape. */
    static OpenAiRequestBody walked(byte[] body) {
        return walked(body, body == null ? 0 : body.length);
    }

    private static OpenAiRequestBody walked(byte[] body, int length) {
        OpenAiRequestBody read = new OpenAiRequestBody();
        JsonWalker.walk(body, 0, length, read.new Reader());
        return read;
    }

    /** {@code model}, or null. On Azure deployment paths it is often absent. */
    public String model() {
        return model;
    }

    /** {@code service_tier} ({@code auto}, {@code default}, {@code flex}, {@code priority}), or null. */
    public String serviceTier() {
        return serviceTier;
    }

    /** {@code max_completion_tokens}, {@code max_tokens} or {@code max_output_tokens} (the largest if several), or {@link RequestFacts#NO_MAX}. */
    public long maxOutputTokens() {
        return maxOutputTokens;
    }

    /** {@code stream: true}. */
    public boolean stream() {
        return stream;
    }

    /** {@code stream_options.include_usage: true}: the stream will end with a usage chunk. */
    public boolean includeUsage() {
        return includeUsage;
    }

    /** Characters of prompt text found, tool and schema JSON included. */
    public long promptCharacters() {
        return promptCharacters;
    }

    /** Messages, input items, tool definitions and instruction blocks: each costs a few tokens of framing. */
    public int parts() {
        return parts;
    }

    /** The input estimate: the estimator's view of the text, plus pre-tokenized ids as they are. */
    public long estimateInputTokens(TokenEstimator estimator, String model) {
        long fromText = estimator == null
                ? (promptCharacters + 3) / 4 + parts * 4L
                : estimator.estimateInputTokens(model, promptCharacters, parts);
        return Math.max(1, fromText + tokenIds);
    }

    /** How many token ids were given instead of text. */
    long tokenIds() {
        return tokenIds;
    }

    // What a read saw, in the order the body gives it; the one place each field's rule is kept
    // (the later model, stream flag and usage flag win; the largest cap; text and parts add up).

    void sawModel(String named) {
        model = named;
    }

    void sawServiceTier(String tier) {
        serviceTier = tier;
    }

    void sawOutputCap(long count) {
        maxOutputTokens = Math.max(maxOutputTokens, count);
    }

    void sawStream(boolean streams) {
        stream = streams;
    }

    void sawIncludeUsage(boolean includes) {
        includeUsage = includes;
    }

    void sawText(long chars) {
        promptCharacters += chars;
    }

    void sawPart() {
        parts++;
    }

    void sawTokenId() {
        tokenIds++;
    }

    /** Reads the fields above in one pass over the body. */
    private final class Reader implements JsonVisitor {

        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            switch (path) {
                case "model":
                    sawModel(JsonScalars.text(p));
                    return;
                case "service_tier":
                    sawServiceTier(JsonScalars.text(p));
                    return;
                case "max_tokens":
                case "max_completion_tokens":
                case "max_output_tokens":
                    sawOutputCap(JsonScalars.count(p));
                    return;
                case "stream":
                    sawStream(JsonScalars.isTrue(p));
                    return;
                case "stream_options.include_usage":
                    sawIncludeUsage(JsonScalars.isTrue(p));
                    return;
                case "input":
                case "prompt":
                case "instructions":
                    if (p.currentToken() == JsonToken.VALUE_STRING) {
                        sawPart();
                        sawText(p.getTextLength());
                    }
                    return;
                case "input[]":
                case "prompt[]":
                    if (p.currentToken() == JsonToken.VALUE_STRING) {
                        sawPart();
                        sawText(p.getTextLength());
                    } else if (p.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                        sawTokenId();
                    }
                    return;
                case "input[][]":
                case "prompt[][]":
                    if (p.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                        sawTokenId();
                    }
                    return;
                case "suffix":
                case "messages[].content":
                case "messages[].content[].text":
                case "messages[].name":
                case "messages[].refusal":
                case "messages[].tool_calls[].function.name":
                case "messages[].tool_calls[].function.arguments":
                case "messages[].function_call.arguments":
                case "input[].content":
                case "input[].content[].text":
                case "input[].output":
                case "input[].arguments":
                case "input[].summary[].text":
                    sawText(JsonScalars.stringLength(p));
                    return;
                default:
            }
        }

        @Override
        public boolean enter(String path) {
            switch (path) {
                case "messages[]":
                case "input[]":
                    sawPart();
                    return true;
                case "tools[]":
                case "functions[]":
                    sawPart();
                    return false; // weighed by its JSON length in skipped()
                case "response_format":
                case "text.format":
                    return false;
                default:
                    return true;
            }
        }

        @Override
        public void skipped(String path, long length) {
            sawText(length);
        }
    }
}
