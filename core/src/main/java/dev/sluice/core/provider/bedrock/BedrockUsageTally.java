package dev.sluice.core.provider.bedrock;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import java.io.IOException;

/**
 * Usage as Bedrock reports it, under whichever of its names the answer uses: Converse's
 * {@code usage} ({@code inputTokens}, {@code outputTokens}, {@code cacheReadInputTokens},
 * {@code cacheWriteInputTokens}), an Anthropic body's {@code usage} ({@code input_tokens},
 * {@code output_tokens}, {@code cache_read_input_tokens}, {@code cache_creation_input_tokens}),
 * a stream's {@code amazon-bedrock-invocationMetrics} ({@code inputTokenCount},
 * {@code outputTokenCount}, {@code cacheReadInputTokenCount}, {@code cacheWriteInputTokenCount})
 * and InvokeModel's {@code x-amzn-bedrock-*-token-count} headers; plus the characters of generated
 * text seen, to count with when the report never comes. Later figures overwrite earlier ones (an
 * Anthropic stream's output count is cumulative).
 *
 * <p>{@link Usage#inputTokens()} is the uncached input plus cache writes, as Bedrock reports input
 * apart from the cache; cache reads go to {@link Usage#cachedInputTokens()}.
 */
final class BedrockUsageTally {

    static final int INPUT = 0;
    static final int OUTPUT = 1;
    static final int CACHE_READ = 2;
    static final int CACHE_WRITE = 3;

    /** The counts reported, by slot; -1 until reported. */
    private final long[] counts = {-1, -1, -1, -1};

    private long generatedCharacters;

    /** The slot a usage member's name fills, whatever the shape; -1 for any other name. */
    static int slotOf(String name) {
        switch (name) {
            case "inputTokens":
            case "input_tokens":
            case "inputTokenCount":
                return INPUT;
            case "outputTokens":
            case "output_tokens":
            case "outputTokenCount":
                return OUTPUT;
            case "cacheReadInputTokens":
            case "cache_read_input_tokens":
            case "cacheReadInputTokenCount":
                return CACHE_READ;
            case "cacheWriteInputTokens":
            case "cache_creation_input_tokens":
            case "cacheWriteInputTokenCount":
                return CACHE_WRITE;
            default:
                return -1;
        }
    }

    /** A member of a usage object, named relative to it. */
    void usageField(String name, JsonParser value) throws IOException {
        int slot = slotOf(name);
        if (slot >= 0) {
            report(slot, JsonScalars.count(value));
        }
    }

    /** A count for a slot; ignored when it is not a count. */
    void report(int slot, long count) {
        if (count >= 0) {
            counts[slot] = count;
        }
    }

    void generated(long characters) {
        generatedCharacters += Math.max(0, characters);
    }

    boolean inputReported() {
        return counts[INPUT] >= 0 || counts[CACHE_WRITE] >= 0;
    }

    boolean outputReported() {
        return counts[OUTPUT] >= 0;
    }

    /**
     * The usage to settle with.
     *
     * @param complete whether the provider's report is whole (a JSON answer's {@code usage}, the
     *     headers, a stream's {@code metadata} or invocation metrics); when it is not, the output
     *     is at least what the streamed text is worth and the usage is marked as counted
     */
    Usage toUsage(RequestFacts facts, TokenEstimator estimator, boolean complete) {
        long cacheWrite = Math.max(0, counts[CACHE_WRITE]);
        long in = inputReported() ? Math.max(0, counts[INPUT]) + cacheWrite : facts.estimatedInputTokens();
        long output = counts[OUTPUT];
        long counted = countedOutput(facts, estimator);
        long out = complete && output >= 0 ? output : Math.max(Math.max(0, output), counted);
        return Usage.builder()
                .inputTokens(in)
                .outputTokens(out)
                .cacheCreationInputTokens(cacheWrite)
                .cachedInputTokens(Math.max(0, counts[CACHE_READ]))
                .reportedByProvider(complete && (inputReported() || output >= 0))
                .build();
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
