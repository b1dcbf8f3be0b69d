package dev.sluice.core.provider.anthropic;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RateLimitSnapshot.Budget;
import dev.sluice.core.provider.wire.BudgetHeaderNames;
import dev.sluice.core.provider.wire.HeaderNumbers;
import dev.sluice.core.retry.WaitHints;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads {@code anthropic-ratelimit-{requests,input-tokens,output-tokens,tokens}-{limit,remaining,reset}},
 * per-minute budgets whose resets are RFC 3339 instants ("fully replenished at").
 *
 * <p>Three choices, each because the headers would mislead the governor otherwise:
 *
 * <ul>
 *   <li><b>Token remaining is rounded</b> to the nearest thousand, so the true figure lies up to
 *       500 below or 499 above it. A value that looks rounded (a multiple of 1000) is reported as
 *       the bottom of that band: reading it as the top let Sluice believe in up to 499 tokens the
 *       provider did not have (field scenario e met a 429 in 41 attempts that way, and a first
 *       answer's figure became a burst 499 too large). The cost is at most 500 tokens of room
 *       left unused after each answer. Request counts are exact and pass as they are.
 *   <li><b>{@code tokens}</b> is not a separate budget today: it repeats whichever of the input
 *       or output budgets is tightest, so reading it as a total-tokens bucket charged input plus
 *       output would throttle a 40k-input / 8k-output organization at 8k total. It is reported as
 *       {@link Dimension#TOTAL_TOKENS} only when neither {@code input-tokens} nor
 *       {@code output-tokens} is present: the older combined token limit.
 *   <li><b>{@code anthropic-priority-*}</b> (Priority Tier) is ignored: that capacity is committed
 *       on top of the standard limits (a request past it falls back to standard), and a second
 *       per-minute input budget would be merged into the standard one, which the governor keys
 *       by dimension and window.
 * </ul>
 */
final class AnthropicRateLimits {

    /** Anthropic's limits are per minute, refilled continuously. */
    static final long MINUTE_MILLIS = 60_000;

    /** How far below a rounded remaining figure the true one may be. */
    static final long ROUNDING_SLACK = 500;

    private static final String PREFIX = "anthropic-ratelimit-";
    private static final BudgetHeaderNames REQUESTS = BudgetHeaderNames.budgetFirst(PREFIX, "requests");
    private static final BudgetHeaderNames INPUT_TOKENS = BudgetHeaderNames.budgetFirst(PREFIX, "input-tokens");
    private static final BudgetHeaderNames OUTPUT_TOKENS = BudgetHeaderNames.budgetFirst(PREFIX, "output-tokens");
    private static final BudgetHeaderNames TOKENS = BudgetHeaderNames.budgetFirst(PREFIX, "tokens");

    private AnthropicRateLimits() {}

    static RateLimitSnapshot read(Headers headers, long nowEpochMillis) {
        if (headers == null) {
            return RateLimitSnapshot.none();
        }
        List<Budget> budgets = new ArrayList<>(3);
        add(budgets, headers, REQUESTS, Dimension.REQUESTS, false, nowEpochMillis);
        boolean split = add(budgets, headers, INPUT_TOKENS, Dimension.INPUT_TOKENS, true, nowEpochMillis);
        split |= add(budgets, headers, OUTPUT_TOKENS, Dimension.OUTPUT_TOKENS, true, nowEpochMillis);
        if (!split) {
            add(budgets, headers, TOKENS, Dimension.TOTAL_TOKENS, true, nowEpochMillis);
        }
        return RateLimitSnapshot.of(budgets);
    }

    private static boolean add(
            List<Budget> budgets,
            Headers h,
            BudgetHeaderNames names,
            Dimension dimension,
            boolean rounded,
            long nowEpochMillis) {
        long limit = HeaderNumbers.count(h.first(names.limit()));
        long remaining = HeaderNumbers.count(h.first(names.remaining()));
        if (limit == RateLimitSnapshot.UNKNOWN && remaining == RateLimitSnapshot.UNKNOWN) {
            return false;
        }
        if (rounded) {
            remaining = bottomOfRoundingBand(remaining);
        }
        long reset = WaitHints.untilInstant(h.first(names.reset()), nowEpochMillis);
        budgets.add(Budget.of(
                names.budget(),
                dimension,
                limit,
                remaining,
                reset == WaitHints.NONE ? RateLimitSnapshot.UNKNOWN : reset,
                MINUTE_MILLIS));
        return true;
    }

    /** The least a remaining figure rounded to the thousand can stand for, never below 0. */
    static long bottomOfRoundingBand(long remaining) {
        if (remaining <= 0 || remaining % 1000 != 0) {
            return remaining;
        }
        return remaining - ROUNDING_SLACK;
    }
}
