package dev.sluice.core;

import dev.sluice.config.Dimension;
import java.util.Arrays;

/**
 * What one call asks of the limits, per dimension, before it is sent. Two views: the estimate
 * that Sluice's own buckets reserve (tenant shares, spend), and what the provider's own limiter
 * will charge (buckets that mirror the provider must be charged that, or Sluice under-reserves and
 * meets 429s). Immutable.
 */
public final class Demand {

    private static final int DIMENSIONS = Dimension.values().length;

    private final long[] estimate;
    private final long[] providerCharge;
    private final boolean[] providerTruesUp;

    private Demand(long[] estimate, long[] providerCharge, boolean[] providerTruesUp) {
        this.estimate = estimate;
        this.providerCharge = providerCharge;
        this.providerTruesUp = providerTruesUp;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** One request and one concurrency slot, no tokens: what a call with no readable body asks. */
    public static Demand oneRequest() {
        return builder().build();
    }

    /** What Sluice's own buckets reserve in this dimension. Total tokens is input plus output. */
    public long estimate(Dimension dimension) {
        if (dimension == Dimension.TOTAL_TOKENS) {
            return estimate[Dimension.INPUT_TOKENS.ordinal()] + estimate[Dimension.OUTPUT_TOKENS.ordinal()];
        }
        return estimate[dimension.ordinal()];
    }

    /** What a bucket mirroring the provider is charged in this dimension. */
    public long providerCharge(Dimension dimension) {
        long charge = providerCharge[dimension.ordinal()];
        return charge >= 0 ? charge : estimate(dimension);
    }

    /** What a bucket in this dimension is charged: the provider's charge when it mirrors the provider, else the estimate. */
    long chargeIn(Dimension dimension, boolean mirrorsProvider) {
        return mirrorsProvider ? providerCharge(dimension) : estimate(dimension);
    }

    /**
     * Whether the provider trues this dimension up to actual usage after the call (Anthropic
     * output tokens); when false the provider keeps what it charged at admission.
     */
    public boolean providerTruesUp(Dimension dimension) {
        return providerTruesUp[dimension.ordinal()];
    }

    public long requests() {
        return estimate[Dimension.REQUESTS.ordinal()];
    }

    public long inputTokens() {
        return estimate[Dimension.INPUT_TOKENS.ordinal()];
    }

    public long outputTokens() {
        return estimate[Dimension.OUTPUT_TOKENS.ordinal()];
    }

    public long totalTokens() {
        return estimate(Dimension.TOTAL_TOKENS);
    }

    public long spendMicros() {
        return estimate[Dimension.SPEND.ordinal()];
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("Demand{");
        for (Dimension d : Dimension.values()) {
            long e = estimate(d);
            if (e != 0) {
                s.append(d.configName()).append('=').append(e);
                long p = providerCharge[d.ordinal()];
                if (p >= 0 && p != e) {
                    s.append(" (provider ").append(p).append(')');
                }
                s.append(", ");
            }
        }
        if (s.length() > 7) {
            s.setLength(s.length() - 2);
        }
        return s.append('}').toString();
    }

    /** Builds a {@link Demand}; requests and concurrency default to 1. */
    public static final class Builder {
        private long[] estimate = new long[DIMENSIONS];
        private long[] providerCharge = new long[DIMENSIONS];
        private boolean[] providerTruesUp = new boolean[DIMENSIONS];
        /** The arrays went to a built Demand, which owns them now: copied before the next change. */
        private boolean handedOver;

        private Builder() {
            Arrays.fill(providerCharge, -1);
            estimate[Dimension.REQUESTS.ordinal()] = 1;
            estimate[Dimension.CONCURRENCY.ordinal()] = 1;
        }

        public Builder requests(long v) {
            return set(Dimension.REQUESTS, v);
        }

        public Builder inputTokens(long v) {
            return set(Dimension.INPUT_TOKENS, v);
        }

        public Builder outputTokens(long v) {
            return set(Dimension.OUTPUT_TOKENS, v);
        }

        public Builder concurrency(long v) {
            return set(Dimension.CONCURRENCY, v);
        }

        public Builder spendMicros(long v) {
            return set(Dimension.SPEND, v);
        }

        /** Sets the estimate in one dimension; total tokens is derived and cannot be set. */
        public Builder set(Dimension dimension, long v) {
            if (dimension == Dimension.TOTAL_TOKENS) {
                throw new IllegalArgumentException("total_tokens is input_tokens + output_tokens; set those");
            }
            if (v < 0) {
                throw new IllegalArgumentException(dimension + " must be >= 0, was " + v);
            }
            ownArrays();
            estimate[dimension.ordinal()] = v;
            return this;
        }

        /** What the provider's own limiter charges in this dimension, when it differs from the estimate. */
        public Builder providerCharge(Dimension dimension, long v) {
            if (v < 0) {
                throw new IllegalArgumentException("provider charge for " + dimension + " must be >= 0, was " + v);
            }
            ownArrays();
            providerCharge[dimension.ordinal()] = v;
            return this;
        }

        /** Declares that the provider trues this dimension up to actual usage after the call. */
        public Builder providerTruesUp(Dimension dimension) {
            ownArrays();
            providerTruesUp[dimension.ordinal()] = true;
            return this;
        }

        /** Every call builds one Demand: its arrays are handed over, not copied, unless the builder is used again. */
        public Demand build() {
            handedOver = true;
            return new Demand(estimate, providerCharge, providerTruesUp);
        }

        private void ownArrays() {
            if (handedOver) {
                estimate = estimate.clone();
                providerCharge = providerCharge.clone();
                providerTruesUp = providerTruesUp.clone();
                handedOver = false;
            }
        }
    }
}
