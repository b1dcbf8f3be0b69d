package dev.sluice.simulator;

/**
 * What a limit counts. Each profile decides how much of each dimension a request is charged at
 * admission (see {@link Profile}), the way the provider it imitates does.
 */
public enum Dimension {
    /** One per request. */
    REQUESTS,
    /**
     * Tokens as OpenAI-style providers count them at admission (OpenAI: max(max_tokens, prompt);
     * Azure: prompt + max_tokens). Anthropic and Gemini read a tokens limit as input tokens.
     */
    TOKENS,
    /** Input tokens (Anthropic: uncached input plus cache creation, not cache reads). */
    INPUT_TOKENS,
    /** Output tokens (Anthropic: reserved from max_tokens at admission, trued up at the end). */
    OUTPUT_TOKENS,
    /** Requests in flight; a slot is held until the response (or stream) has been fully sent. */
    CONCURRENCY
}
