package dev.sluice.core.provider.compatible;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RateLimitSnapshot.Budget;
import dev.sluice.core.provider.openai.OpenAiRateLimits;
import dev.sluice.core.provider.wire.HeaderNumbers;
import dev.sluice.core.retry.WaitHints;
import java.util.ArrayList;
import java.util.List;

/**
 * The budget headers OpenAI-compatible servers send:
 *
 * <ul>
 *   <li>OpenAI's {@code x-ratelimit-{limit,remaining,reset}-{requests,tokens}} (Groq, vLLM behind
 *       gateways, LiteLLM), over configurable windows: Groq's request budget is per day.
 *   <li>Mistral's token budgets "by size": {@code x-ratelimitbysize-{limit,remaining}-minute} and
 *       {@code -month}, or the plain {@code ratelimitbysize-{limit,remaining}}; the reset is
 *       {@code ratelimitbysize-reset} in seconds and belongs to the minute. A month is read as a 30
 *       day window (the governor refills it continuously, which is lenient near a month's end).
 *       {@code ratelimitbysize-query-cost} is this call's cost, not a budget, and is not read.
 * </ul>
 */
final class CompatibleRateLimits {

    static final long MINUTE_MILLIS = 60_000;
    static final long MONTH_MILLIS = 30L * 24 * 3_600_000;

    private CompatibleRateLimits() {}

    static RateLimitSnapshot read(Headers headers, long requestsWindowMillis, long tokensWindowMillis) {
        if (headers == null) {
            return RateLimitSnapshot.none();
        }
        List<Budget> budgets = new ArrayList<>(OpenAiRateLimits.read(headers, requestsWindowMillis, tokensWindowMillis)
                .budgets());
        long reset = WaitHints.seconds(headers.first("ratelimitbysize-reset"));
        long resetMillis = reset == WaitHints.NONE ? RateLimitSnapshot.UNKNOWN : reset;
        if (!add(
                budgets,
                "tokens-minute",
                headers.first("x-ratelimitbysize-limit-minute"),
                headers.first("x-ratelimitbysize-remaining-minute"),
                resetMillis,
                MINUTE_MILLIS)) {
            add(
                    budgets,
                    "tokens-minute",
                    headers.first("ratelimitbysize-limit"),
                    headers.first("ratelimitbysize-remaining"),
                    resetMillis,
                    MINUTE_MILLIS);
        }
        add(
                budgets,
                "tokens-month",
                headers.first("x-ratelimitbysize-limit-month"),
                headers.first("x-ratelimitbysize-remaining-month"),
                RateLimitSnapshot.UNKNOWN,
                MONTH_MILLIS);
        return RateLimitSnapshot.of(budgets);
    }

    private static boolean add(
            List<Budget> budgets,
            String name,
            String limitHeader,
            String remainingHeader,
            long resetMillis,
            long windowMillis) {
        long limit = HeaderNumbers.count(limitHeader);
        long remaining = HeaderNumbers.count(remainingHeader);
        if (limit == RateLimitSnapshot.UNKNOWN && remaining == RateLimitSnapshot.UNKNOWN) {
            return false;
        }
        budgets.add(Budget.of(name, Dimension.TOTAL_TOKENS, limit, remaining, resetMillis, windowMillis));
        return true;
    }
}
