package dev.sluice.core.estimate;

import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Estimates what a call will use before it is sent, and learns from what calls really used.
 *
 * <p>Input: characters of prompt text divided by a ratio, plus framing per message, times a
 * per-model correction learned from the provider's reported prompt tokens (bounded, so one odd
 * call cannot swing it). Output: the request's max tokens, or less when the route's recent
 * outputs show it never gets near (a learned percentile), or a conservative default for a route
 * with neither. Thread-safe.
 */
public final class Estimator implements TokenEstimator {

    private static final double CORRECTION_WEIGHT = 0.2;
    private static final int OUTPUT_SAMPLES = 128;
    private static final int MIN_SAMPLES_FOR_PERCENTILE = 16;

    // Anonymous classes, not lambdas: a first call's settlement meets them on the application's
    // start-up, where the JVM spins a class for each lambda (docs/startup-figures.md).
    private static final Function<String, Correction> NEW_CORRECTION = new Function<>() {
        @Override
        public Correction apply(String model) {
            return new Correction(1.0);
        }
    };

    private final double charsPerToken;
    private final int tokensPerMessage;
    private final double outputPercentile;
    private final long defaultOutputTokens;
    private final boolean learn;
    private final double correctionMin;
    private final double correctionMax;
    private final StateByKey<Correction> corrections = new StateByKey<>(10_000, NEW_CORRECTION);
    private final StateByKey<OutputHistory> outputs = new StateByKey<>(10_000, new Function<>() {
        @Override
        public OutputHistory apply(String route) {
            return new OutputHistory(outputPercentile);
        }
    });

    public Estimator(
            double charsPerToken,
            int tokensPerMessage,
            double outputPercentile,
            long defaultOutputTokens,
            boolean learn,
            double correctionMin,
            double correctionMax) {
        if (!(charsPerToken > 0)) {
            throw new IllegalArgumentException("charsPerToken must be > 0");
        }
        this.charsPerToken = charsPerToken;
        this.tokensPerMessage = tokensPerMessage;
        this.outputPercentile = outputPercentile;
        this.defaultOutputTokens = defaultOutputTokens;
        this.learn = learn;
        this.correctionMin = correctionMin;
        this.correctionMax = correctionMax;
    }

    /** The defaults: 4 characters a token, 4 tokens of framing a message, p95, 1024 tokens. */
    public static Estimator defaults() {
        return new Estimator(4.0, 4, 0.95, 1024, true, 0.5, 2.0);
    }

    @Override
    public long estimateInputTokens(String model, long characters, int parts) {
        double raw = Math.ceil(characters / charsPerToken) + (long) parts * tokensPerMessage;
        double corrected = raw * correction(model);
        return Math.max(1, (long) Math.ceil(corrected));
    }

    @Override
    public long tokensForText(String model, long characters) {
        return (long) Math.ceil(characters / charsPerToken);
    }

    /** The learned input correction for a model (1.0 until something was learned). */
    public double correction(String model) {
        if (model == null) {
            return 1.0;
        }
        Correction c = corrections.find(model);
        return c == null ? 1.0 : c.factor();
    }

    /**
     * Output tokens Sluice's own buckets reserve for a call: no more than its max tokens, and no
     * more than the route's learned percentile when enough calls were seen.
     */
    public long outputEstimate(String route, long maxOutputTokens) {
        OutputHistory h = route == null ? null : outputs.find(route);
        long learned = h == null ? -1 : h.percentile();
        if (maxOutputTokens >= 0) {
            return learned >= 0 ? Math.min(maxOutputTokens, learned) : maxOutputTokens;
        }
        return learned >= 0 ? learned : defaultOutputTokens;
    }

    /** Output tokens to reserve when the request names no maximum and the provider needs one. */
    public long defaultOutputTokens() {
        return defaultOutputTokens;
    }

    /** Learns from a settled call: the provider's prompt count against the estimate, and the output. */
    public void learn(String route, RequestFacts facts, long reportedInputTokens, long outputTokens) {
        if (!learn) {
            return;
        }
        if (reportedInputTokens > 0 && facts.estimatedInputTokens() > 0 && facts.model() != null) {
            // every caller of one model moves the same entry
            Correction correction = corrections.findOrMake(facts.model());
            double rawEstimate = facts.estimatedInputTokens() / correction.factor();
            double observed = reportedInputTokens / rawEstimate;
            correction.moveTowards(observed, correctionMin, correctionMax);
        }
        if (route != null && outputTokens >= 0) {
            outputs.findOrMake(route).add(outputTokens);
        }
    }

    /**
     * Mean relative error of the input estimate for a model, as the provider reported it
     * (|correction - 1|), for status views.
     */
    public double inputEstimateError(String model) {
        return Math.abs(correction(model) - 1.0);
    }

    /** A model's input correction: an exponential average moved by compare-and-set, so callers never block. */
    private static final class Correction {
        private final AtomicLong bits;

        Correction(double factor) {
            this.bits = new AtomicLong(Double.doubleToRawLongBits(factor));
        }

        double factor() {
            return Double.longBitsToDouble(bits.get());
        }

        void moveTowards(double observed, double min, double max) {
            long before;
            long after;
            do {
                before = bits.get();
                double prior = Double.longBitsToDouble(before);
                double next = prior + CORRECTION_WEIGHT * (observed - prior);
                after = Double.doubleToRawLongBits(Math.max(min, Math.min(max, next)));
            } while (!bits.compareAndSet(before, after));
        }
    }

    /**
     * A route's last {@value #OUTPUT_SAMPLES} outputs, in arrival order and kept sorted as they
     * come: each call moves at most two runs of the sorted array (a few dozen nanoseconds) and the
     * percentile is exact after every call. Not a copy sorted every eighth call: that was a
     * spike of microseconds on one call in eight, and an array made for it.
     */
    private static final class OutputHistory {
        private final double percentile;
        /** Output tokens fit an int; a larger count is kept as the largest int. */
        private final int[] arrivals = new int[OUTPUT_SAMPLES];

        private final int[] sorted = new int[OUTPUT_SAMPLES];
        private int count;
        private int next;
        private volatile long cachedPercentile = -1;

        OutputHistory(double percentile) {
            this.percentile = percentile;
        }

        synchronized void add(long value) {
            int tokens = (int) Math.min(Integer.MAX_VALUE, value);
            if (count == OUTPUT_SAMPLES) {
                removeSorted(arrivals[next]);
            }
            arrivals[next] = tokens;
            next = (next + 1) % OUTPUT_SAMPLES;
            insertSorted(tokens);
            if (count >= MIN_SAMPLES_FOR_PERCENTILE) {
                int index = (int) Math.ceil(percentile * count) - 1;
                cachedPercentile = sorted[Math.max(0, Math.min(count - 1, index))];
            }
        }

        /** Removes one occurrence of a value the sorted run holds. */
        private void removeSorted(int tokens) {
            int at = Arrays.binarySearch(sorted, 0, count, tokens);
            System.arraycopy(sorted, at + 1, sorted, at, count - at - 1);
            count--;
        }

        private void insertSorted(int tokens) {
            int at = Arrays.binarySearch(sorted, 0, count, tokens);
            if (at < 0) {
                at = -at - 1;
            }
            System.arraycopy(sorted, at, sorted, at + 1, count - at);
            sorted[at] = tokens;
            count++;
        }

        long percentile() {
            return cachedPercentile;
        }
    }
}
