package dev.sluice.core;

/**
 * What a call actually consumed, as the provider reported it (or as Sluice counted it when the
 * provider never said). Immutable.
 */
public final class Usage {

    /** Nothing consumed: the attempt never reached the model. */
    public static final Usage NONE = builder().build();

    private final long inputTokens;
    private final long outputTokens;
    private final long cachedInputTokens;
    private final long cacheCreationInputTokens;
    private final long cacheWrite1hInputTokens;
    private final long reasoningTokens;
    private final long spendMicros;
    private final String serviceTier;
    private final boolean reportedByProvider;

    private Usage(Builder b) {
        this.inputTokens = b.inputTokens;
        this.outputTokens = b.outputTokens;
        this.cachedInputTokens = b.cachedInputTokens;
        this.cacheCreationInputTokens = b.cacheCreationInputTokens;
        this.cacheWrite1hInputTokens = b.cacheWrite1hInputTokens;
        this.reasoningTokens = b.reasoningTokens;
        this.spendMicros = b.spendMicros;
        this.serviceTier = b.serviceTier;
        this.reportedByProvider = b.reportedByProvider;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Input tokens as the provider's rate limiter counts them. For OpenAI and Gemini this is the
     * whole prompt; for Anthropic the uncached input plus cache-creation tokens (cache reads do not
     * count toward its input TPM).
     */
    public long inputTokens() {
        return inputTokens;
    }

    /** Output tokens, reasoning tokens included. */
    public long outputTokens() {
        return outputTokens;
    }

    /** Prompt tokens served from the provider's cache (informational). */
    public long cachedInputTokens() {
        return cachedInputTokens;
    }

    /**
     * Prompt tokens written to the provider's cache (Anthropic; OpenAI for gpt-5.6 and later),
     * included in {@link #inputTokens()}.
     */
    public long cacheCreationInputTokens() {
        return cacheCreationInputTokens;
    }

    /** Of {@link #cacheCreationInputTokens()}, those written to a cache kept for an hour (Anthropic), billed higher. */
    public long cacheWrite1hInputTokens() {
        return cacheWrite1hInputTokens;
    }

    /**
     * The service tier the answer says the call ran in ({@code standard}, {@code priority},
     * {@code batch}...), or null when it did not say: then the tier the request asked for prices it.
     */
    public String serviceTier() {
        return serviceTier;
    }

    /** Reasoning tokens, included in {@link #outputTokens()} (informational). */
    public long reasoningTokens() {
        return reasoningTokens;
    }

    /** Cost in micro-units of the config's currency, when known (priced from the config's price table). */
    public long spendMicros() {
        return spendMicros;
    }

    /** The same usage with its cost in micro-units of the config's currency. */
    public Usage withSpendMicros(long micros) {
        Builder b = builder()
                .inputTokens(inputTokens)
                .outputTokens(outputTokens)
                .cachedInputTokens(cachedInputTokens)
                .cacheCreationInputTokens(cacheCreationInputTokens)
                .cacheWrite1hInputTokens(cacheWrite1hInputTokens)
                .reasoningTokens(reasoningTokens)
                .spendMicros(micros)
                .serviceTier(serviceTier)
                .reportedByProvider(reportedByProvider);
        return b.build();
    }

    /** Input plus output tokens. */
    public long totalTokens() {
        return inputTokens + outputTokens;
    }

    /** True when the provider reported these figures; false when Sluice counted them itself. */
    public boolean reportedByProvider() {
        return reportedByProvider;
    }

    @Override
    public String toString() {
        return "Usage{input=" + inputTokens + ", output=" + outputTokens + ", cached=" + cachedInputTokens
                + ", cacheCreation=" + cacheCreationInputTokens
                + (cacheWrite1hInputTokens == 0 ? "" : " (1h " + cacheWrite1hInputTokens + ")") + ", reasoning="
                + reasoningTokens + ", spendMicros=" + spendMicros
                + (serviceTier == null ? "" : ", serviceTier=" + serviceTier)
                + (reportedByProvider ? ", reported" : ", counted") + '}';
    }

    /** Builds a {@link Usage}. */
    public static final class Builder {
        private long inputTokens;
        private long outputTokens;
        private long cachedInputTokens;
        private long cacheCreationInputTokens;
        private long cacheWrite1hInputTokens;
        private long reasoningTokens;
        private long spendMicros;
        private String serviceTier;
        private boolean reportedByProvider;

        private Builder() {}

        public Builder inputTokens(long v) {
            this.inputTokens = requireNonNegative(v, "inputTokens");
            return this;
        }

        public Builder outputTokens(long v) {
            this.outputTokens = requireNonNegative(v, "outputTokens");
            return this;
        }

        public Builder cachedInputTokens(long v) {
            this.cachedInputTokens = requireNonNegative(v, "cachedInputTokens");
            return this;
        }

        public Builder cacheCreationInputTokens(long v) {
            this.cacheCreationInputTokens = requireNonNegative(v, "cacheCreationInputTokens");
            return this;
        }

        public Builder cacheWrite1hInputTokens(long v) {
            this.cacheWrite1hInputTokens = requireNonNegative(v, "cacheWrite1hInputTokens");
            return this;
        }

        /** The service tier the answer reports; null when it reports none. */
        public Builder serviceTier(String v) {
            this.serviceTier = v;
            return this;
        }

        public Builder reasoningTokens(long v) {
            this.reasoningTokens = requireNonNegative(v, "reasoningTokens");
            return this;
        }

        public Builder spendMicros(long v) {
            this.spendMicros = requireNonNegative(v, "spendMicros");
            return this;
        }

        public Builder reportedByProvider(boolean v) {
            this.reportedByProvider = v;
            return this;
        }

        public Usage build() {
            return new Usage(this);
        }

        private static long requireNonNegative(long v, String name) {
            if (v < 0) {
                throw new IllegalArgumentException(name + " must be >= 0, was " + v);
            }
            return v;
        }
    }
}
