package dev.sluice.simulator.protocol;

/**
 * A model request as parsed by a protocol: what was asked and the token counts the simulator
 * admits and answers with.
 *
 * @param operation the API operation (chat.completions, responses, messages, generateContent...)
 * @param model the model (Azure: the deployment)
 * @param stream whether a server-sent-event stream was asked for
 * @param includeUsage OpenAI chat: stream_options.include_usage
 * @param maxOutputTokens max_tokens (or its equivalent) when given, else null
 * @param inputTokens uncached input tokens, estimated from characters
 * @param cacheCreationTokens input tokens written to the prompt cache (Anthropic)
 * @param cacheReadTokens input tokens read from the prompt cache (Anthropic)
 * @param outputTokens tokens the simulator will generate: min(max tokens, configured default)
 * @param detail protocol-specific extra (Azure API version...), or null
 */
public record ModelCall(
        String operation,
        String model,
        boolean stream,
        boolean includeUsage,
        Integer maxOutputTokens,
        int inputTokens,
        int cacheCreationTokens,
        int cacheReadTokens,
        int outputTokens,
        String detail) {

    /** All input tokens, cached or not. */
    public int totalInputTokens() {
        return inputTokens + cacheCreationTokens + cacheReadTokens;
    }

    /** Whether generation stopped at max tokens rather than naturally. */
    public boolean hitMaxTokens() {
        return maxOutputTokens != null && outputTokens >= maxOutputTokens;
    }
}
