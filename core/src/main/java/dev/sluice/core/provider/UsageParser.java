package dev.sluice.core.provider;

import dev.sluice.core.Usage;

/**
 * Reads usage from a successful response body as it streams by (a JSON document or SSE events),
 * without holding more than it needs. One instance per attempt; fed from one thread at a time.
 * Never throws: malformed input leaves what was counted so far.
 */
public interface UsageParser {

    /** More body bytes, in order; lent for the call only (copy what is kept). */
    void accept(byte[] chunk, int offset, int length);

    /**
     * The body's first bytes, {@code bytes[0, length)}, given for good: nobody writes into the
     * array after this call, so a parser that keeps the body may keep the array instead of a copy
     * (the bytes a client read before the parser could be made). By default they are accepted as
     * any others.
     */
    default void adopt(byte[] bytes, int length) {
        accept(bytes, 0, length);
    }

    /** The body ended (completely or not); flush any partial event or document. */
    void finish();

    /**
     * The best usage known now: what the provider reported, or, when it never did (stream broken,
     * usage not requested), what was counted from the streamed text with the request's input
     * estimate. {@link Usage#reportedByProvider()} tells which.
     */
    Usage usage();

    /**
     * The model the answer says served the call ({@code gen_ai.response.model}): OpenAI's and Azure's
     * {@code model}, Anthropic's {@code message.model}, Gemini's {@code modelVersion}; read from
     * the body or stream as it passes, in the same reading as the usage. Null when the answer named
     * none, or before the body ended.
     */
    default String responseModel() {
        return null;
    }

    /**
     * The usage of a JSON answer too large to keep ({@link dev.sluice.core.provider.json.BoundedBody}
     * overflowed) whose usage was never read: the request's input estimate, and its size counted
     * as output, capped by the request's maximum (erring toward charging too much).
     */
    static Usage bySize(RequestFacts facts, TokenEstimator estimator, long bodyBytes) {
        long out = estimator == null ? (bodyBytes + 3) / 4 : estimator.tokensForText(facts.model(), bodyBytes);
        long max = facts.maxOutputTokens();
        return Usage.builder()
                .inputTokens(facts.estimatedInputTokens())
                .outputTokens(Math.max(0, max >= 0 ? Math.min(out, max) : out))
                .reportedByProvider(false)
                .build();
    }

    /**
     * An error the provider signalled inside a successful response (mid-stream {@code
     * overloaded_error}, {@code response.failed} with {@code rate_limit_exceeded}), or null.
     */
    ProviderError streamError();
}
