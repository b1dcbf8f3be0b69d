package dev.sluice.core.provider.openai;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.PlainCounts;
import java.io.IOException;

/**
 * Usage as an OpenAI-format response reports it (Chat Completions' {@code prompt_tokens} /
 * {@code completion_tokens} or the Responses API's {@code input_tokens} / {@code output_tokens}),
 * plus the characters of generated text seen, to count with when the report never comes. A later
 * report overwrites an earlier one: servers that repeat usage send it cumulative. Cache reads
 * ({@code cached_tokens}) and, for gpt-5.6 and later, cache writes ({@code cache_write_tokens}) are
 * part of the input.
 */
final class OpenAiUsageTally {

    /** The counts read from a {@code usage} object, by slot: each API's name for a count. */
    static final PlainCounts COUNTS = PlainCounts.of(
            new String[] {"prompt_tokens", "input_tokens"},
            new String[] {"completion_tokens", "output_tokens"},
            new String[] {"total_tokens"},
            new String[] {"prompt_tokens_details.cached_tokens", "input_tokens_details.cached_tokens"},
            new String[] {"completion_tokens_details.reasoning_tokens", "output_tokens_details.reasoning_tokens"},
            new String[] {"prompt_tokens_details.cache_write_tokens", "input_tokens_details.cache_write_tokens"});

    private static final int INPUT = 0;
    private static final int OUTPUT = 1;
    private static final int TOTAL = 2;
    private static final int CACHED = 3;
    private static final int REASONING = 4;
    private static final int CACHE_WRITE = 5;

    /** The counts reported, by {@link #COUNTS}' slot; -1 until reported. Read into straight by {@link PlainCounts}. */
    final long[] counts = {-1, -1, -1, -1, -1, -1};

    private long generatedCharacters;

    /** A field of a {@code usage} object, named relative to it (e.g. {@code prompt_tokens_details.cached_tokens}). */
    void usageField(String name, JsonParser value) throws IOException {
        COUNTS.readScalar(name, value, counts);
    }

    void generated(long characters) {
        generatedCharacters += Math.max(0, characters);
    }

    boolean reported() {
        return counts[INPUT] >= 0 || counts[OUTPUT] >= 0;
    }

    /**
     * The provider's figures when it reported any; otherwise the request's input estimate and the
     * output counted from the generated text, marked as counted.
     */
    Usage toUsage(RequestFacts facts, TokenEstimator estimator) {
        if (!reported()) {
            return counted(facts, estimator, generatedCharacters);
        }
        long input = counts[INPUT];
        long output = counts[OUTPUT];
        long total = counts[TOTAL];
        long in = input >= 0 ? input : facts.estimatedInputTokens();
        long out = output >= 0 ? output : total >= 0 && input >= 0 ? Math.max(0, total - input) : 0;
        return Usage.builder()
                .inputTokens(in)
                .outputTokens(out)
                .cachedInputTokens(Math.max(0, counts[CACHED]))
                .cacheCreationInputTokens(Math.max(0, counts[CACHE_WRITE]))
                .reasoningTokens(Math.max(0, counts[REASONING]))
                .reportedByProvider(true)
                .build();
    }

    /** Usage Sluice counts itself: the input estimate and the output text's worth in tokens. */
    static Usage counted(RequestFacts facts, TokenEstimator estimator, long outputCharacters) {
        long out = 0;
        if (outputCharacters > 0) {
            out = estimator == null
                    ? (outputCharacters + 3) / 4
                    : estimator.tokensForText(facts.model(), outputCharacters);
        }
        return Usage.builder()
                .inputTokens(facts.estimatedInputTokens())
                .outputTokens(Math.max(0, out))
                .reportedByProvider(false)
                .build();
    }
}
