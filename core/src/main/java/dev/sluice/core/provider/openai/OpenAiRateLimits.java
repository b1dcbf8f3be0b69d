package dev.sluice.core.provider.openai;

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
 * Reads {@code x-ratelimit-{limit,remaining,reset}-{requests,tokens}}, the budget headers of
 * OpenAI and of compatible servers that copied them. Resets are Go durations ({@code 6m0s},
 * {@code 20ms}); a plain number is taken as seconds, as some compatible servers send. The windows
 * are the caller's: 60 s for OpenAI, a day for Groq's request budget.
 */
public final class OpenAiRateLimits {

    /** OpenAI's limits are per minute (RPM, TPM). */
    public static final long MINUTE_MILLIS = 60_000;

    private static final BudgetHeaderNames REQUESTS = BudgetHeaderNames.kindFirst("x-ratelimit-", "requests");
    private static final BudgetHeaderNames TOKENS = BudgetHeaderNames.kindFirst("x-ratelimit-", "tokens");

    private OpenAiRateLimits() {}

    /** OpenAI's per-minute request and token budgets. */
    public static RateLimitSnapshot read(Headers headers) {
        return read(headers, MINUTE_MILLIS, MINUTE_MILLIS);
    }

    /** Request and token budgets over the given windows; a budget with neither limit nor remaining is left out. */
    public static RateLimitSnapshot read(Headers headers, long requestsWindowMillis, long tokensWindowMillis) {
        if (headers == null) {
            return RateLimitSnapshot.none();
        }
        List<Budget> budgets = new ArrayList<>(2);
        add(budgets, headers, REQUESTS, Dimension.REQUESTS, requestsWindowMillis);
        add(budgets, headers, TOKENS, Dimension.TOTAL_TOKENS, tokensWindowMillis);
        return RateLimitSnapshot.of(budgets);
    }

    /**
     * {@code openai-processing-ms}: how long OpenAI worked on the call before answering, or {@link
     * RateLimitSnapshot#UNKNOWN}. Azure OpenAI's answers are read for it too: used when present.
     */
    public static long processingMillis(Headers headers) {
        return headers == null ? RateLimitSnapshot.UNKNOWN : HeaderNumbers.count(headers.first("openai-processing-ms"));
    }

    private static void add(
            List<Budget> budgets, Headers h, BudgetHeaderNames names, Dimension dimension, long windowMillis) {
        long limit = HeaderNumbers.count(h.first(names.limit()));
        long remaining = HeaderNumbers.count(h.first(names.remaining()));
        if (limit == RateLimitSnapshot.UNKNOWN && remaining == RateLimitSnapshot.UNKNOWN) {
            return;
        }
        budgets.add(
                Budget.of(names.budget(), dimension, limit, remaining, reset(h.first(names.reset())), windowMillis));
    }

    private static long reset(String value) {
        long ms = WaitHints.goDuration(value);
        if (ms == WaitHints.NONE) {
            ms = WaitHints.seconds(value);
        }
        return ms == WaitHints.NONE ? RateLimitSnapshot.UNKNOWN : ms;
    }
}
