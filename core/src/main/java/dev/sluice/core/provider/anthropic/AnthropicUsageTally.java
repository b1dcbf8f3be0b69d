package dev.sluice.core.provider.anthropic;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.PlainCounts;
import java.io.IOException;

/**
 * Usage as Anthropic reports it ({@code input_tokens} uncached, {@code cache_creation_input_tokens},
 * {@code cache_read_input_tokens}, {@code output_tokens}), plus the characters of generated text
 * seen, to count with when the report never comes. Later figures overwrite earlier ones: a
 * stream's {@code message_delta} counts are cumulative.
 *
 * <p>{@link Usage#inputTokens()} is what Anthropic's input limit counts: uncached input plus cache
 * writes. Cache reads do not count toward it and go to {@link Usage#cachedInputTokens()}. Of the
 * writes, {@code cache_creation.ephemeral_1h_input_tokens} went to a one-hour cache, which costs
 * more; {@code service_tier} says whether the call ran at standard, priority or batch prices.
 */
final class AnthropicUsageTally {

    /** The counts read from a {@code usage} object, by slot. */
    static final PlainCounts COUNTS = PlainCounts.of(
                    new String[] {"input_tokens"},
                    new String[] {"output_tokens"},
                    new String[] {"cache_creation_input_tokens"},
                    new String[] {"cache_read_input_tokens"},
                    new String[] {"cache_creation.ephemeral_1h_input_tokens"})
            .withWord("service_tier", "standard", "priority", "batch");

    private static final int INPUT = 0;
    private static final int OUTPUT = 1;
    private static final int CACHE_CREATION = 2;
    private static final int CACHE_READ = 3;
    private static final int CACHE_WRITE_1H = 4;
    private static final int SERVICE_TIER = 5;

    private static final String[] TIER_WORDS = {"standard", "priority", "batch"};

    /** The counts reported, by {@link #COUNTS}' slot; -1 until reported. Read into straight by {@link PlainCounts}. */
    final long[] counts = {-1, -1, -1, -1, -1, -1};

    /** A service tier none of {@link #TIER_WORDS} names, as a walk read it. */
    private String otherTier;

    private long generatedCharacters;

    /** A field of a {@code usage} object, named relative to it. */
    void usageField(String name, JsonParser value) throws IOException {
        int slot = COUNTS.slotOf(name);
        if (slot < 0) {
            return;
        }
        if (slot == SERVICE_TIER) {
            String tier = JsonScalars.text(value);
            if (tier != null) {
                counts[SERVICE_TIER] = COUNTS.wordIndex(tier);
                otherTier = tier;
            }
            return;
        }
        long n = JsonScalars.count(value);
        if (n >= 0) {
            counts[slot] = n;
        }
    }

    void generated(long characters) {
        generatedCharacters += Math.max(0, characters);
    }

    boolean inputReported() {
        return counts[INPUT] >= 0 || counts[CACHE_CREATION] >= 0;
    }

    boolean outputReported() {
        return counts[OUTPUT] >= 0;
    }

    /**
     * The usage to settle with.
     *
     * @param complete whether the provider's report is whole (a JSON answer's {@code usage}, or a
     *     stream's {@code message_delta}); when it is not, the output is at least what the streamed
     *     text is worth and the usage is marked as counted
     */
    Usage toUsage(RequestFacts facts, TokenEstimator estimator, boolean complete) {
        long input = counts[INPUT];
        long output = counts[OUTPUT];
        long cacheCreation = counts[CACHE_CREATION];
        long in = inputReported() ? Math.max(0, input) + Math.max(0, cacheCreation) : facts.estimatedInputTokens();
        long counted = countedOutput(facts, estimator);
        long out = complete && output >= 0 ? output : Math.max(Math.max(0, output), counted);
        return Usage.builder()
                .inputTokens(in)
                .outputTokens(out)
                .cacheCreationInputTokens(Math.max(0, cacheCreation))
                .cacheWrite1hInputTokens(Math.max(0, counts[CACHE_WRITE_1H]))
                .cachedInputTokens(Math.max(0, counts[CACHE_READ]))
                .serviceTier(serviceTier())
                .reportedByProvider(complete && (inputReported() || output >= 0))
                .build();
    }

    /** The tier the answer reported, or null. */
    private String serviceTier() {
        long index = counts[SERVICE_TIER];
        if (index < 0) {
            return null;
        }
        return index < TIER_WORDS.length ? TIER_WORDS[(int) index] : otherTier;
    }

    private long countedOutput(RequestFacts facts, TokenEstimator estimator) {
        if (generatedCharacters == 0) {
            return 0;
        }
        long tokens = estimator == null
                ? (generatedCharacters + 3) / 4
                : estimator.tokensForText(facts.model(), generatedCharacters);
        return Math.max(0, tokens);
    }
}
