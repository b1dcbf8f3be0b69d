package dev.sluice.core.provider.bedrock;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.JsonWalker;
import java.io.IOException;

/**
 * What a Bedrock Runtime request body says that admission needs: its maximum output and how much
 * prompt it carries. One pass reads either shape a body has:
 *
 * <ul>
 *   <li><b>Converse</b> ({@code /converse}, {@code /converse-stream}): {@code system[].text},
 *       {@code messages[].content[].text}, a tool call's {@code toolUse.input} and a tool result's
 *       {@code toolResult.content[]} (text, or JSON weighed by its length), the JSON of
 *       {@code toolConfig.tools[]}; the maximum is {@code inferenceConfig.maxTokens}.
 *   <li><b>The model's own body</b> ({@code /invoke}, {@code /invoke-with-response-stream}):
 *       Anthropic's Messages body ({@code anthropic_version}, {@code system}, {@code messages},
 *       {@code tools}, {@code max_tokens}), and the prompt and maximum of the other families'
 *       bodies ({@code prompt} with {@code max_gen_len} or {@code max_tokens}, Titan's
 *       {@code inputText} and {@code textGenerationConfig.maxTokenCount}, Nova's
 *       {@code inferenceConfig.max_new_tokens}).
 * </ul>
 *
 * Images, documents and videos are not counted: their bytes are not text and their cost is not in
 * the body.
 */
final class BedrockRequestBody {

    private long maxTokens = RequestFacts.NO_MAX;
    private long promptCharacters;
    private int parts;

    private BedrockRequestBody() {}

    /** Reads the body in {@code body}'s first {@code length} bytes; a null, empty or malformed body reads as what could be read. */
    static BedrockRequestBody read(byte[] body, int length) {
        BedrockRequestBody read = new BedrockRequestBody();
        JsonWalker.walk(body, 0, length, read.new Reader());
        return read;
    }

    /** The request's maximum output tokens, or {@link RequestFacts#NO_MAX}. */
    long maxTokens() {
        return maxTokens;
    }

    long promptCharacters() {
        return promptCharacters;
    }

    /** The input estimate for the whole prompt (cache reads cannot be told apart before the call). */
    long estimateInputTokens(TokenEstimator estimator, String model) {
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
                case "inferenceConfig.maxTokens": // Converse
                case "max_tokens": // Anthropic, Mistral, Cohere
                case "max_gen_len": // Llama
                case "textGenerationConfig.maxTokenCount": // Titan
                case "inferenceConfig.max_new_tokens": // Nova
                    long n = JsonScalars.count(p);
                    if (n >= 0) {
                        maxTokens = Math.max(maxTokens, n);
                    }
                    return;
                case "system":
                case "prompt":
                case "inputText":
                case "message":
                    if (p.currentToken() == JsonToken.VALUE_STRING) {
                        parts++;
                        promptCharacters += p.getTextLength();
                    }
                    return;
                case "system[].text":
                case "messages[].content": // a message's text as one string (Anthropic)
                case "messages[].content[].text":
                case "messages[].content[].toolResult.content[].text":
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
                case "toolConfig.tools[]":
                    parts++;
                    return false; // weighed by its JSON length in skipped()
                case "messages[].content[].input":
                case "messages[].content[].toolUse.input":
                case "messages[].content[].toolResult.content[].json":
                    return false; // a tool call's arguments or a tool's JSON result, weighed by length
                case "messages[].content[].image":
                case "messages[].content[].document":
                case "messages[].content[].video":
                case "messages[].content[].source":
                case "messages[].content[].content[].source":
                case "messages[].content[].toolResult.content[].image":
                case "messages[].content[].toolResult.content[].document":
                case "additionalModelRequestFields":
                case "metadata":
                case "requestMetadata":
                    return false; // media and metadata: not prompt text
                default:
                    return true;
            }
        }

        @Override
        public void skipped(String path, long length) {
            switch (path) {
                case "tools[]":
                case "toolConfig.tools[]":
                case "messages[].content[].input":
                case "messages[].content[].toolUse.input":
                case "messages[].content[].toolResult.content[].json":
                    promptCharacters += length;
                    return;
                default:
            }
        }
    }
}
