package dev.sluice.core.provider.openai;

/**
 * The generation endpoints of the OpenAI API that Sluice governs, by the path tail they share on
 * OpenAI ({@code /v1/<tail>}), Azure OpenAI ({@code /openai/deployments/{d}/<tail>},
 * {@code /openai/v1/<tail>}) and OpenAI-compatible servers.
 */
public enum OpenAiOperation {
    CHAT_COMPLETIONS("chat.completions", "chat/completions"),
    RESPONSES("responses", "responses"),
    COMPLETIONS("completions", "completions"),
    EMBEDDINGS("embeddings", "embeddings");

    private final String operationName;
    private final String pathTail;

    OpenAiOperation(String operationName, String pathTail) {
        this.operationName = operationName;
        this.pathTail = pathTail;
    }

    /** The name in {@code RequestFacts.operation()}, e.g. {@code chat.completions}. */
    public String operationName() {
        return operationName;
    }

    /** The path after the API prefix, e.g. {@code chat/completions}. */
    public String pathTail() {
        return pathTail;
    }

    /**
     * The operation a path ends with after {@code prefix}, e.g. {@code ("/v1/chat/completions",
     * "/v1/")}; a trailing slash is tolerated. Null when the path is not one of these endpoints
     * (retrieving a stored response, listing models, uploading files: nothing to govern).
     */
    public static OpenAiOperation at(String path, String prefix) {
        return path == null || prefix == null || !path.startsWith(prefix) ? null : at(path, prefix.length());
    }

    /**
     * The operation whose tail is the whole of {@code path} from {@code tailStart} on (a trailing
     * slash tolerated), or null: {@link #at(String, String)} for a prefix the caller has already
     * matched, such as an Azure deployment's.
     */
    public static OpenAiOperation at(String path, int tailStart) {
        if (path == null || tailStart < 0) {
            return null;
        }
        int tailLength = withoutTrailingSlash(path) - tailStart;
        for (OpenAiOperation op : ALL) {
            if (op.pathTail.length() == tailLength && path.startsWith(op.pathTail, tailStart)) {
                return op;
            }
        }
        return null;
    }

    /**
     * The operation a path ends with under any prefix, as OpenAI-compatible servers and gateways
     * mount the API: {@code /v1/chat/completions}, {@code /openai/v1/chat/completions},
     * {@code /api/llm/chat/completions}. A trailing slash is tolerated; the tail must start a
     * segment ({@code /mycompletions} is not {@code /completions}). Null for anything else (model
     * lists, files, a stored response).
     */
    public static OpenAiOperation endingIn(String path) {
        if (path == null) {
            return null;
        }
        int end = withoutTrailingSlash(path);
        for (OpenAiOperation op : ALL) { // chat/completions is tried before completions
            int start = end - op.pathTail.length();
            if (start > 0 && path.charAt(start - 1) == '/' && path.startsWith(op.pathTail, start)) {
                return op;
            }
        }
        return null;
    }

    private static int withoutTrailingSlash(String path) {
        return path.endsWith("/") ? path.length() - 1 : path.length();
    }

    /** {@link #values()}, which copies its array on each call: these run on every governed call. */
    private static final OpenAiOperation[] ALL = values();
}
