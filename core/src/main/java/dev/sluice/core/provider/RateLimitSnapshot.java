package dev.sluice.core.provider;

import dev.sluice.config.Dimension;
import java.util.Collections;
import java.util.List;

/**
 * The budgets a provider announced in one response's headers. Immutable. Any figure the provider
 * left out, sent as {@code -1} or in a form that did not parse is {@link #UNKNOWN}.
 */
public final class RateLimitSnapshot {

    /** A figure the provider did not give. */
    public static final long UNKNOWN = -1;

    private static final RateLimitSnapshot NONE = new RateLimitSnapshot(Collections.emptyList());

    private final List<Budget> budgets;

    private RateLimitSnapshot(List<Budget> budgets) {
        this.budgets = budgets;
    }

    public static RateLimitSnapshot of(List<Budget> budgets) {
        return budgets == null || budgets.isEmpty() ? NONE : new RateLimitSnapshot(List.copyOf(budgets));
    }

    public static RateLimitSnapshot none() {
        return NONE;
    }

    public List<Budget> budgets() {
        return budgets;
    }

    public boolean isEmpty() {
        return budgets.isEmpty();
    }

    @Override
    public String toString() {
        return budgets.toString();
    }

    /** One announced budget: a dimension over a window, with what is left and when it is full again. */
    public static final class Budget {
        private final String name;
        private final Dimension dimension;
        private final long limit;
        private final long remaining;
        private final long resetAfterMillis;
        private final long windowMillis;

        private Budget(String name, Dimension dimension, long limit, long remaining, long resetAfterMillis,
                long windowMillis) {
            this.name = name;
            this.dimension = dimension;
            this.limit = limit;
            this.remaining = remaining;
            this.resetAfterMillis = resetAfterMillis;
            this.windowMillis = windowMillis;
        }

        /**
         * @param name the provider's name for it, e.g. {@code tokens}, {@code input-tokens}
         * @param dimension what Sluice counts it as
         * @param limit capacity per window, or {@link #UNKNOWN}
         * @param remaining what is left now, or {@link #UNKNOWN}
         * @param resetAfterMillis when the budget is full again (or the window ends), or {@link #UNKNOWN}
         * @param windowMillis the window the limit is defined over (60 000 for per-minute limits)
         */
        public static Budget of(String name, Dimension dimension, long limit, long remaining, long resetAfterMillis,
                long windowMillis) {
            return new Budget(name, dimension, limit, remaining, resetAfterMillis, windowMillis);
        }

        public String name() {
            return name;
        }

        public Dimension dimension() {
            return dimension;
        }

        public long limit() {
            return limit;
        }

        public long remaining() {
            return remaining;
        }

        public long resetAfterMillis() {
            return resetAfterMillis;
        }

        public long windowMillis() {
            return windowMillis;
        }

        @Override
        public String toString() {
            return name + "(" + dimension + ": limit=" + limit + ", remaining=" + remaining + ", resetMs="
                    + resetAfterMillis + ", windowMs=" + windowMillis + ")";
        }
    }
}
