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
        if (path == null || prefix == null || !path.startsWith(prefix)) {
            return null;
        }
        int end = path.endsWith("/") ? path.length() - 1 : path.length();
        if (end < prefix.length()) {
            return null;
        }
        int tailLength = end - prefix.length();
        for (OpenAiOperation op : ALL) { // read on every call: no copy of values(), no substring
            if (op.pathTail.length() == tailLength && path.startsWith(op.pathTail, prefix.length())) {
                return op;
            }
        }
        return null;
    }

    /** {@link #values()}, which copies its array on each call. Never handed out. */
    private static final OpenAiOperation[] ALL = values();
}
