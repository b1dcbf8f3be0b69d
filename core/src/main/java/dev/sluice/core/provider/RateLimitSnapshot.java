package dev.sluice.core.provider;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.wire.HeaderNumbers;
import dev.sluice.core.retry.WaitHints;
import java.util.Collections;
import java.util.List;

/**
 * The budgets a provider announced in one response's headers. Immutable. Any figure the provider
 * left out, sent as {@code -1} or in a form that did not parse is {@link #UNKNOWN}.
 *
 * <p>Whatever an adapter read, a budget reaching the governor is sane: its limit is positive, its
 * remaining figure within {@code [0, limit]}, its reset within {@code [0, WaitHints.MAX_MILLIS]} and
 * its window positive, each or unknown; a budget left with neither limit nor remaining is dropped.
 * {@link Budget#of} enforces it, so one malformed header cannot hand the governor a zero capacity,
 * a negative room or a wait of centuries, whichever adapter read it.
 */
public final class RateLimitSnapshot {

    /** A figure the provider did not give. */
    public static final long UNKNOWN = -1;

    private static final RateLimitSnapshot NONE = new RateLimitSnapshot(Collections.emptyList());

    private final List<Budget> budgets;

    private RateLimitSnapshot(List<Budget> budgets) {
        this.budgets = budgets;
    }

    /** The budgets that say something (a limit or a remaining figure); nulls and empty ones are dropped. */
    public static RateLimitSnapshot of(List<Budget> budgets) {
        if (budgets == null || budgets.isEmpty()) {
            return NONE;
        }
        List<Budget> known = new java.util.ArrayList<>(budgets.size());
        for (Budget b : budgets) {
            if (b != null && (b.limit != UNKNOWN || b.remaining != UNKNOWN)) {
                known.add(b);
            }
        }
        return known.isEmpty() ? NONE : new RateLimitSnapshot(List.copyOf(known));
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

        private Budget(
                String name,
                Dimension dimension,
                long limit,
                long remaining,
                long resetAfterMillis,
                long windowMillis) {
            this.name = name;
            this.dimension = dimension;
            this.limit = limit;
            this.remaining = remaining;
            this.resetAfterMillis = resetAfterMillis;
            this.windowMillis = windowMillis;
        }

        /**
         * A budget, its figures made sane: a limit not in {@code [1, HeaderNumbers.MAX_COUNT]} is
         * unknown (a limit of 0 is no budget the governor could mirror); a negative remaining figure
         * is unknown and one above the limit is the limit; a negative reset is unknown and a longer
         * one than {@link WaitHints#MAX_MILLIS} is clamped to it; a window not positive is unknown.
         *
         * @param name the provider's name for it, e.g. {@code tokens}, {@code input-tokens}
         * @param dimension what Sluice counts it as
         * @param limit capacity per window, or {@link #UNKNOWN}
         * @param remaining what is left now, or {@link #UNKNOWN}
         * @param resetAfterMillis when the budget is full again (or the window ends), or {@link #UNKNOWN}
         * @param windowMillis the window the limit is defined over (60 000 for per-minute limits)
         */
        public static Budget of(
                String name,
                Dimension dimension,
                long limit,
                long remaining,
                long resetAfterMillis,
                long windowMillis) {
            long l = limit > 0 && limit <= HeaderNumbers.MAX_COUNT ? limit : UNKNOWN;
            long r = remaining < 0 || remaining > HeaderNumbers.MAX_COUNT
                    ? UNKNOWN
                    : l != UNKNOWN ? Math.min(remaining, l) : remaining;
            long reset = resetAfterMillis < 0 ? UNKNOWN : Math.min(resetAfterMillis, WaitHints.MAX_MILLIS);
            return new Budget(name, dimension, l, r, reset, windowMillis > 0 ? windowMillis : UNKNOWN);
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
