package dev.sluice.core.provider.openai;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import java.io.IOException;

/**
 * Usage as an OpenAI-format response reports it (Chat Completions' {@code prompt_tokens} /
 * {@code completion_tokens} or the Responses API's {@code input_tokens} / {@code output_tokens}),
 * plus the characters of generated text seen, to count with when the report never comes. A later
 * report overwrites an earlier one: servers that repeat usage send it cumulative.
 */
final class UsageTally {

    private long input = -1;
    private long output = -1;
    private long total = -1;
    private long cached = -1;
    private long reasoning = -1;
    private long generatedCharacters;

    /** A field of a {@code usage} object, named relative to it (e.g. {@code prompt_tokens_details.cached_tokens}). */
    void usageField(String name, JsonParser value) throws IOException {
        long n = JsonScalars.count(value);
        if (n < 0) {
            return;
        }
        switch (name) {
            case "prompt_tokens":
            case "input_tokens":
                input = n;
                return;
            case "completion_tokens":
            case "output_tokens":
                output = n;
                return;
            case "total_tokens":
                total = n;
                return;
            case "prompt_tokens_details.cached_tokens":
            case "input_tokens_details.cached_tokens":
                cached = n;
                return;
            case "completion_tokens_details.reasoning_tokens":
            case "output_tokens_details.reasoning_tokens":
                reasoning = n;
                return;
            default:
        }
    }

    void generated(long characters) {
        generatedCharacters += Math.max(0, characters);
    }

    boolean reported() {
        return input >= 0 || output >= 0;
    }

    /**
     * The provider's figures when it reported any; otherwise the request's input estimate and the
     * output counted from the generated text, marked as counted.
     */
    Usage toUsage(RequestFacts facts, TokenEstimator estimator) {
        if (!reported()) {
            return counted(facts, estimator, generatedCharacters);
        }
        long in = input >= 0 ? input : facts.estimatedInputTokens();
        long out = output >= 0 ? output : total >= 0 && input >= 0 ? Math.max(0, total - input) : 0;
        return Usage.builder()
                .inputTokens(in)
                .outputTokens(out)
                .cachedInputTokens(Math.max(0, cached))
                .reasoningTokens(Math.max(0, reasoning))
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
