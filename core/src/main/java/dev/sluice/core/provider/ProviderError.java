package dev.sluice.core.provider;

import dev.sluice.config.Dimension;
import dev.sluice.core.retry.OutcomeClass;

/** What a provider's non-success answer means: its class, its wait hint, and its own words. Immutable. */
public final class ProviderError {

    /** {@link #retryAfterMillis()} when the provider gave no wait hint. */
    public static final long NO_HINT = -1;

    private final OutcomeClass outcome;
    private final long retryAfterMillis;
    private final Dimension limiter;
    private final String type;
    private final String code;
    private final String message;

    private ProviderError(Builder b) {
        this.outcome = b.outcome;
        this.retryAfterMillis = b.retryAfterMillis;
        this.limiter = b.limiter;
        this.type = b.type;
        this.code = b.code;
        this.message = b.message;
    }

    public static Builder builder(OutcomeClass outcome) {
        return new Builder(outcome);
    }

    public OutcomeClass outcome() {
        return outcome;
    }

    /** The provider's wait hint in milliseconds from now, or {@link #NO_HINT}. */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }

    public boolean hasWaitHint() {
        return retryAfterMillis >= 0;
    }

    /** The dimension the provider said ran out (requests, tokens, ...), or null when it did not say. */
    public Dimension limiter() {
        return limiter;
    }

    /** The provider's error type, e.g. {@code tokens}, {@code rate_limit_error}, or null. */
    public String type() {
        return type;
    }

    /** The provider's error code as a string (providers send numbers or strings), or null. */
    public String code() {
        return code;
    }

    /** The provider's message, or null. */
    public String message() {
        return message;
    }

    @Override
    public String toString() {
        return "ProviderError{" + outcome + (hasWaitHint() ? ", retryAfterMs=" + retryAfterMillis : "")
                + (limiter != null ? ", limiter=" + limiter : "") + (type != null ? ", type=" + type : "")
                + (code != null ? ", code=" + code : "") + '}';
    }

    /** Builds a {@link ProviderError}. */
    public static final class Builder {
        private final OutcomeClass outcome;
        private long retryAfterMillis = NO_HINT;
        private Dimension limiter;
        private String type;
        private String code;
        private String message;

        private Builder(OutcomeClass outcome) {
            if (outcome == null) {
                throw new IllegalArgumentException("outcome must not be null");
            }
            this.outcome = outcome;
        }

        public Builder retryAfterMillis(long v) {
            this.retryAfterMillis = v < 0 ? NO_HINT : v;
            return this;
        }

        public Builder limiter(Dimension v) {
            this.limiter = v;
            return this;
        }

        public Builder type(String v) {
            this.type = v;
            return this;
        }

        public Builder code(String v) {
            this.code = v;
            return this;
        }

        public Builder message(String v) {
            this.message = v;
            return this;
        }

        public ProviderError build() {
            return new ProviderError(this);
        }
    }
}
