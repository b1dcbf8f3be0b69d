package dev.sluice.core.provider.gemini;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.JsonWalker;
import java.io.IOException;

/**
 * What a {@code generateContent} body says that admission needs: the output cap
 * ({@code generationConfig.maxOutputTokens}) and how much prompt it carries: the text parts of
 * {@code contents} and {@code systemInstruction}, function calls and responses in the history (as
 * JSON), and the JSON of {@code tools} declarations. Inline and file data (images, audio, PDFs)
 * are not counted: their token cost is not in the body; neither is a {@code cachedContent}, which
 * lives on the server. Both the JSON names (camelCase) and the proto names (snake_case) are read,
 * as Google's endpoints accept both.
 */
final class GeminiRequestBody {

    private long maxOutputTokens = RequestFacts.NO_MAX;
    private long promptCharacters;
    private int parts;

    private GeminiRequestBody() {}

    static GeminiRequestBody read(byte[] body, int length) {
        GeminiRequestBody read = new GeminiRequestBody();
        JsonWalker.walk(body, 0, length, read.new Reader());
        return read;
    }

    long maxOutputTokens() {
        return maxOutputTokens;
    }

    long estimateInputTokens(TokenEstimator estimator, String model) {
        long tokens = estimator == null
                ? (promptCharacters + 3) / 4 + parts * 4L
                : estimator.estimateInputTokens(model, promptCharacters, parts);
        return Math.max(1, tokens);
    }

    private final class Reader implements JsonVisitor {

        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            switch (path) {
                case "generationConfig.maxOutputTokens":
                case "generation_config.max_output_tokens":
                    maxOutputTokens = Math.max(maxOutputTokens, JsonScalars.count(p));
                    return;
                case "contents[].parts[].text":
                case "systemInstruction.parts[].text":
                case "system_instruction.parts[].text":
                    promptCharacters += JsonScalars.stringLength(p);
                    return;
                default:
            }
        }

        @Override
        public boolean enter(String path) {
            switch (path) {
                case "contents[]":
                case "systemInstruction":
                case "system_instruction":
                    parts++;
                    return true;
                case "tools[]":
                    parts++;
                    return false;
                case "contents[].parts[].functionCall":
                case "contents[].parts[].function_call":
                case "contents[].parts[].functionResponse":
                case "contents[].parts[].function_response":
                    return false; // weighed by their JSON length
                case "contents[].parts[].inlineData":
                case "contents[].parts[].inline_data":
                case "contents[].parts[].fileData":
                case "contents[].parts[].file_data":
                case "safetySettings":
                case "safety_settings":
                case "labels":
                    return false; // not prompt text
                default:
                    return true;
            }
        }

        @Override
        public void skipped(String path, long length) {
            switch (path) {
                case "tools[]":
                case "contents[].parts[].functionCall":
                case "contents[].parts[].function_call":
                case "contents[].parts[].functionResponse":
                case "contents[].parts[].function_response":
                    promptCharacters += length;
                    return;
                default:
            }
        }
    }
}
