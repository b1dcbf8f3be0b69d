package dev.sluice.core.provider.gemini;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import java.io.IOException;

/**
 * Reads {@code GenerateContentResponse} JSON into a {@link GeminiUsageTally}: one response, one SSE
 * event's data, or a JSON array of streamed responses (paths under {@code []}). Notes an
 * {@code error} object (mid-stream failure) in a {@link GoogleError}, and the answer's
 * {@code modelVersion}.
 */
final class GeminiResponseReader implements JsonVisitor {

    private final GeminiUsageTally tally;
    GoogleError error;
    /** The first {@code modelVersion} an answer gave. */
    String modelVersion;

    GeminiResponseReader(GeminiUsageTally tally) {
        this.tally = tally;
    }

    private static String local(String path) {
        return path.startsWith("[].") ? path.substring(3) : path;
    }

    @Override
    public boolean enter(String path) {
        String p = local(path);
        switch (p) {
            case "usageMetadata":
            case "usage_metadata":
                tally.beginReport();
                return true;
            case "candidates[].content.parts[].functionCall":
            case "candidates[].content.parts[].function_call":
                return false; // weighed by its JSON length
            case "candidates[].content.parts[].inlineData":
            case "candidates[].content.parts[].inline_data":
            case "candidates[].safetyRatings":
            case "candidates[].citationMetadata":
            case "candidates[].groundingMetadata":
            case "candidates[].logprobsResult":
            case "usageMetadata.promptTokensDetails":
            case "usageMetadata.candidatesTokensDetails":
            case "usageMetadata.cacheTokensDetails":
            case "usageMetadata.toolUsePromptTokensDetails":
            case "promptFeedback":
                return false;
            case "error":
                if (error == null) {
                    error = new GoogleError();
                }
                return true;
            default:
                return true;
        }
    }

    @Override
    public void skipped(String path, long length) {
        String p = local(path);
        if (p.equals("candidates[].content.parts[].functionCall")
                || p.equals("candidates[].content.parts[].function_call")) {
            tally.generated(length);
        }
    }

    @Override
    public void scalar(String path, JsonParser p) throws IOException {
        String name = local(path);
        if (name.startsWith("usageMetadata.")) {
            tally.usageField(name.substring(14), p);
        } else if (name.startsWith("usage_metadata.")) {
            tally.usageField(name.substring(15), p);
        } else if (name.equals("candidates[].content.parts[].text")) {
            tally.generated(JsonScalars.stringLength(p));
        } else if (name.equals("candidates[].finishReason") || name.equals("candidates[].finish_reason")) {
            if (JsonScalars.text(p) != null) {
                tally.finished();
            }
        } else if (name.equals("modelVersion") || name.equals("model_version")) {
            if (modelVersion == null) {
                modelVersion = JsonScalars.name(p);
            }
        } else if (error != null && name.startsWith("error")) {
            error.scalar(name, p);
        }
    }
}
