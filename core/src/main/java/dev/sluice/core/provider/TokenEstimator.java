package dev.sluice.core.provider;

/**
 * Turns the text of a request into an input-token estimate. Adapters extract the text that counts
 * (messages, system prompt, tool definitions); the estimator owns the ratio and its learned
 * per-model correction.
 */
public interface TokenEstimator {

    /**
     * @param model the model named in the request, or null
     * @param characters characters of text content in the prompt
     * @param parts messages or content parts, each of which costs a few tokens of framing
     * @return estimated input tokens, at least 1
     */
    long estimateInputTokens(String model, long characters, int parts);

    /** Output tokens a piece of streamed text is worth, for counting when usage never arrives. */
    long tokensForText(String model, long characters);
}
