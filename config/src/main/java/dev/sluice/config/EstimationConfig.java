package dev.sluice.config;

/**
 * How the governor estimates a call's tokens before it is sent, so it can reserve them. Input
 * tokens come from the serialized request ({@link #charsPerToken()} with a learned per-model
 * correction kept within [{@link #correctionMin()}, {@link #correctionMax()}]); output tokens
 * from max tokens or the route's learned {@link #outputPercentile()}.
 */
public final class EstimationConfig {
    private static final EstimationConfig DEFAULTS = builder().build();

    private final double charsPerToken;
    private final int tokensPerMessage;
    private final double outputPercentile;
    private final int defaultOutputTokens;
    private final boolean learn;
    private final double correctionMin;
    private final double correctionMax;

    private EstimationConfig(Builder b) {
        this.charsPerToken = b.charsPerToken;
        this.tokensPerMessage = b.tokensPerMessage;
        this.outputPercentile = b.outputPercentile;
        this.defaultOutputTokens = b.defaultOutputTokens;
        this.learn = b.learn;
        this.correctionMin = b.correctionMin;
        this.correctionMax = b.correctionMax;
    }

    /** 4 chars per token, 4 tokens per message, p95 output, 1024 default output tokens, learning on, correction 0.5..2. */
    public static EstimationConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        ConfigSchema.ESTIMATION.copy(this, b);
        return b;
    }

    /** Characters of serialized request per input token before the learned correction. */
    public double charsPerToken() {
        return charsPerToken;
    }

    /** Framing tokens each chat message costs on top of its content. */
    public int tokensPerMessage() {
        return tokensPerMessage;
    }

    /** Which percentile of a route's observed output tokens is reserved when the request sets no max tokens below it. */
    public double outputPercentile() {
        return outputPercentile;
    }

    /** Output tokens reserved for a route with no max tokens and nothing learned yet. */
    public int defaultOutputTokens() {
        return defaultOutputTokens;
    }

    /** Whether estimates are corrected from observed usage. */
    public boolean learn() {
        return learn;
    }

    /** Lower bound of the learned input correction factor, so one odd response cannot skew estimates far. */
    public double correctionMin() {
        return correctionMin;
    }

    /** Upper bound of the learned input correction factor. */
    public double correctionMax() {
        return correctionMax;
    }

    void validate(String path, Issues issues) {
        ConfigSchema.ESTIMATION.validate(this, path, issues);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EstimationConfig && ConfigSchema.ESTIMATION.sameValues(this, (EstimationConfig) o);
    }

    @Override
    public int hashCode() {
        return ConfigSchema.ESTIMATION.hashValues(this);
    }

    @Override
    public String toString() {
        return "EstimationConfig{charsPerToken=" + Issues.number(charsPerToken) + ", tokensPerMessage="
                + tokensPerMessage
                + ", outputPercentile=" + Issues.number(outputPercentile) + ", defaultOutputTokens="
                + defaultOutputTokens
                + ", learn=" + learn + ", correction=" + Issues.number(correctionMin) + ".."
                + Issues.number(correctionMax) + "}";
    }

    /** Builds an {@link EstimationConfig}; starts from the defaults. */
    public static final class Builder {
        // Defaults, ranges and docs: ConfigSchema.ESTIMATION.
        double charsPerToken;
        int tokensPerMessage;
        double outputPercentile;
        int defaultOutputTokens;
        boolean learn;
        double correctionMin;
        double correctionMax;

        private Builder() {
            ConfigSchema.ESTIMATION.applyDefaults(this);
        }

        public Builder charsPerToken(double charsPerToken) {
            this.charsPerToken = charsPerToken;
            return this;
        }

        public Builder tokensPerMessage(int tokensPerMessage) {
            this.tokensPerMessage = tokensPerMessage;
            return this;
        }

        public Builder outputPercentile(double outputPercentile) {
            this.outputPercentile = outputPercentile;
            return this;
        }

        public Builder defaultOutputTokens(int defaultOutputTokens) {
            this.defaultOutputTokens = defaultOutputTokens;
            return this;
        }

        public Builder learn(boolean learn) {
            this.learn = learn;
            return this;
        }

        public Builder correctionMin(double correctionMin) {
            this.correctionMin = correctionMin;
            return this;
        }

        public Builder correctionMax(double correctionMax) {
            this.correctionMax = correctionMax;
            return this;
        }

        /** @throws IllegalArgumentException naming every invalid setting */
        public EstimationConfig build() {
            EstimationConfig e = new EstimationConfig(this);
            Issues issues = new Issues();
            e.validate("", issues);
            issues.throwIfAny("estimation config");
            return e;
        }

        EstimationConfig buildUnchecked() {
            return new EstimationConfig(this);
        }
    }
}
