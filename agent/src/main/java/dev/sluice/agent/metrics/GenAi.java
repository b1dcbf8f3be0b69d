package dev.sluice.agent.metrics;

import dev.sluice.core.CallContext;

/**
 * The OpenTelemetry GenAI client metrics as the semantic conventions (1.41) name them: the two
 * instruments, their attributes, the values Sluice gives them and the bucket boundaries the
 * conventions recommend.
 */
final class GenAi {

    static final String TOKEN_USAGE = "gen_ai.client.token.usage";
    static final String OPERATION_DURATION = "gen_ai.client.operation.duration";

    static final String OPERATION_NAME = "gen_ai.operation.name";
    static final String PROVIDER_NAME = "gen_ai.provider.name";
    static final String REQUEST_MODEL = "gen_ai.request.model";
    /** The model the answer named (a dated snapshot, an Azure deployment's model); absent when it named none. */
    static final String RESPONSE_MODEL = "gen_ai.response.model";

    static final String TOKEN_TYPE = "gen_ai.token.type";
    static final String ERROR_TYPE = "error.type";
    /** The conventions' draft split of token usage (semantic-conventions-genai, not released yet). */
    static final String TOKEN_CACHE = "gen_ai.token.cache";

    static final String TOKEN_REASONING = "gen_ai.token.reasoning";

    /** {@code gen_ai.client.token.usage}: ExplicitBucketBoundaries the conventions give. */
    static final double[] TOKEN_BUCKETS = {
        1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864
    };

    /** {@code gen_ai.client.operation.duration}, in seconds: ExplicitBucketBoundaries the conventions give. */
    static final double[] DURATION_BUCKETS = {
        0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92
    };

    private GenAi() {}

    /**
     * {@code gen_ai.provider.name} for a provider Sluice recognised: the conventions' well-known
     * value for its kind; for an OpenAI-compatible endpoint or a gateway, the provider's name in
     * the config (name it {@code groq}, {@code mistral_ai}... to match the conventions).
     */
    static String providerName(CallContext call) {
        String kind = call.providerKind();
        if (kind == null) {
            return call.provider();
        }
        switch (kind) {
            case "openai":
                return "openai";
            case "azure-openai":
                return "azure.ai.openai";
            case "anthropic":
                return "anthropic";
            case "gemini":
                return "gcp.gemini";
            case "vertex-ai":
                return "gcp.vertex_ai";
            default:
                return call.provider();
        }
    }

    /**
     * {@code gen_ai.operation.name}: {@code chat} for chat completions, OpenAI's Responses and
     * Anthropic's Messages; {@code text_completion}, {@code embeddings}, {@code generate_content}
     * (Gemini and Vertex AI); the endpoint's own name otherwise.
     */
    static String operationName(String operation) {
        if (operation == null) {
            return "chat";
        }
        switch (operation) {
            case "chat.completions":
            case "responses":
            case "messages":
                return "chat";
            case "completions":
                return "text_completion";
            case "embeddings":
            case "embedContent":
            case "batchEmbedContents":
                return "embeddings";
            case "generateContent":
            case "streamGenerateContent":
                return "generate_content";
            default:
                return operation;
        }
    }
}
