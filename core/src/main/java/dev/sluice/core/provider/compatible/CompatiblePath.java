package dev.sluice.core.provider.compatible;

import dev.sluice.core.provider.openai.OpenAiOperation;

/**
 * The OpenAI operation a compatible server's path ends with, under any prefix:
 * {@code /v1/chat/completions}, {@code /openai/v1/chat/completions}, {@code /api/llm/chat/completions}.
 * A trailing slash is tolerated; the tail must start a segment ({@code /mycompletions} is not
 * {@code /completions}). Null for anything else (model lists, files, a stored response).
 */
public final class CompatiblePath {

    private CompatiblePath() {}

    /** Read on every call of a compatible server: {@code values()} would copy the array each time. */
    private static final OpenAiOperation[] OPERATIONS = OpenAiOperation.values();

    public static OpenAiOperation operation(String path) {
        if (path == null || path.isEmpty()) {
            return null;
        }
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        for (OpenAiOperation op : OPERATIONS) { // chat/completions is tried before completions
            String tail = op.pathTail();
            int start = p.length() - tail.length();
            if (start > 0 && p.endsWith(tail) && p.charAt(start - 1) == '/') {
                return op;
            }
        }
        return null;
    }
}
