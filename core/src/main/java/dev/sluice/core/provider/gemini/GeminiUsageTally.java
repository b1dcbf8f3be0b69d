package dev.sluice.core.provider.gemini;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.JsonScalars;
import java.io.IOException;

/**
 * Usage as Gemini reports it in {@code usageMetadata}, and the text it generated, to count with
 * when no report comes. Each {@code usageMetadata} replaces the previous one whole (a streamed
 * answer repeats it in chunks, the last being authoritative, and proto3 JSON leaves zero counts
 * out, so a field missing from a later report means zero, not "as before").
 *
 * <p>{@link Usage#inputTokens()} is {@code promptTokenCount} (which includes cached tokens: Gemini
 * counts the whole prompt) plus {@code toolUsePromptTokenCount}; output is
 * {@code candidatesTokenCount + thoughtsTokenCount}; cached and thinking tokens are reported apart
 * too.
 */
final class GeminiUsageTally {

    private boolean reported;
    private long prompt;
    private long cached;
    private long candidates;
    private long thoughts;
    private long toolUsePrompt;
    private long total;
    private boolean finished;
    private long generatedCharacters;

    /** A {@code usageMetadata} object begins: it replaces whatever was reported before. */
    void beginReport() {
        reported = true;
        prompt = cached = candidates = thoughts = toolUsePrompt = total = -1;
    }

    /** A field of the current {@code usageMetadata}, named relative to it. */
    void usageField(String name, JsonParser value) throws IOException {
        long n = JsonScalars.count(value);
        if (n < 0) {
            return;
        }
        switch (name) {
            case "promptTokenCount":
            case "prompt_token_count":
                prompt = n;
                return;
            case "cachedContentTokenCount":
            case "cached_content_token_count":
                cached = n;
                return;
            case "candidatesTokenCount":
            case "candidates_token_count":
                candidates = n;
                return;
            case "thoughtsTokenCount":
            case "thoughts_token_count":
                thoughts = n;
                return;
            case "toolUsePromptTokenCount":
            case "tool_use_prompt_token_count":
                toolUsePrompt = n;
                return;
            case "totalTokenCount":
            case "total_token_count":
                total = n;
                return;
            default:
        }
    }

    /** A candidate carried a {@code finishReason}: the answer is complete, and so is its usage. */
    void finished() {
        finished = true;
    }

    void generated(long characters) {
        generatedCharacters += Math.max(0, characters);
    }

    /**
     * @param complete whether the report can be trusted whole: a JSON answer, or a stream that
     *     reached its final chunk; otherwise output is at least what the streamed text is worth
     */
    Usage toUsage(RequestFacts facts, TokenEstimator estimator, boolean complete) {
        if (!reported) {
            return Usage.builder()
                    .inputTokens(facts.estimatedInputTokens())
                    .outputTokens(counted(facts, estimator))
                    .reportedByProvider(false)
                    .build();
        }
        long in = (prompt >= 0 ? prompt : facts.estimatedInputTokens()) + Math.max(0, toolUsePrompt);
        long out;
        if (candidates >= 0 || thoughts >= 0) {
            out = Math.max(0, candidates) + Math.max(0, thoughts);
        } else {
            out = total >= 0 && prompt >= 0 ? Math.max(0, total - prompt - Math.max(0, toolUsePrompt)) : 0;
        }
        boolean whole = complete || finished;
        if (!whole) {
            out = Math.max(out, counted(facts, estimator));
        }
        return Usage.builder()
                .inputTokens(in)
                .outputTokens(out)
                .cachedInputTokens(Math.max(0, cached))
                .reasoningTokens(Math.max(0, thoughts))
                .reportedByProvider(whole && prompt >= 0)
                .build();
    }

    private long counted(RequestFacts facts, TokenEstimator estimator) {
        if (generatedCharacters == 0) {
            return 0;
        }
        long tokens = estimator == null
                ? (generatedCharacters + 3) / 4
                : estimator.tokensForText(facts.model(), generatedCharacters);
        return Math.max(0, tokens);
    }
}
