package dev.sluice.simulator.protocol;

import java.time.Clock;

/**
 * What every protocol needs from the simulator's configuration.
 *
 * @param clock time for timestamps in bodies and headers
 * @param defaultOutputTokens tokens generated when max tokens is absent or larger
 * @param modelMaxOutputTokens what Azure reserves when max_tokens is absent
 * @param roundTokensRemaining whether token {@code remaining} headers are rounded to the nearest
 *     thousand (Anthropic does; the other profiles ignore this)
 */
public record ProtocolSettings(
        Clock clock, int defaultOutputTokens, int modelMaxOutputTokens, boolean roundTokensRemaining) {

    public ProtocolSettings(Clock clock, int defaultOutputTokens, int modelMaxOutputTokens) {
        this(clock, defaultOutputTokens, modelMaxOutputTokens, true);
    }

    /** Tokens to generate for a request that allows at most {@code maxTokens} (may be null). */
    public int outputTokens(Integer maxTokens) {
        return maxTokens == null ? defaultOutputTokens : Math.max(0, Math.min(maxTokens, defaultOutputTokens));
    }
}
