package dev.sluice.core.provider.azure;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.openai.OpenAiErrorBody;
import dev.sluice.core.provider.openai.OpenAiErrors;
import dev.sluice.core.provider.wire.StatusOutcomes;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints;
import java.util.Locale;

/**
 * What Azure OpenAI's error answers mean (providers.md, Azure). Its 429 uses the OpenAI envelope
 * with {@code "code":"429"} as a string and says the wait in words ("Please retry after 37
 * seconds"), besides {@code retry-after} / {@code retry-after-ms}. A quota that will not come back
 * for an hour or more (a daily or monthly quota, "retry after 86400 seconds") is policy: retrying
 * inside a call's deadline cannot help, and spinning on it only burns the retry budget.
 */
final class AzureErrors {

    /** Waits at least this long are quota exhaustion, not rate: no retry. */
    static final long QUOTA_WAIT_MILLIS = 3_600_000;

    private AzureErrors() {}

    static ProviderError classify(int status, Headers headers, byte[] body, long nowEpochMillis) {
        OpenAiErrorBody error = OpenAiErrorBody.read(body);
        long hint = WaitHints.fromHeaders(headers, nowEpochMillis);
        if (hint == WaitHints.NONE) {
            hint = WaitHints.fromMessage(error.message(), nowEpochMillis);
        }
        OutcomeClass outcome = OpenAiErrors.outcomeOf(status, error);
        if (outcome == OutcomeClass.RETRYABLE_CAPACITY && (hint >= QUOTA_WAIT_MILLIS || isLongQuota(error.message()))) {
            outcome = OutcomeClass.NON_RETRYABLE_POLICY;
        }
        outcome = StatusOutcomes.obey(WaitHints.shouldRetry(headers), outcome, status);
        return ProviderError.builder(outcome)
                .retryAfterMillis(hint)
                .limiter(limiterOf(error))
                .type(error.type())
                .code(error.code())
                .message(error.message())
                .build();
    }

    /** "exceeded token rate limit" → tokens, "exceeded call rate limit" → requests, else as OpenAI reads it. */
    static Dimension limiterOf(OpenAiErrorBody error) {
        String message = error.message() == null ? "" : error.message().toLowerCase(Locale.ROOT);
        if (message.contains("token rate limit") || message.contains("tokens per minute")) {
            return Dimension.TOTAL_TOKENS;
        }
        if (message.contains("call rate limit")
                || message.contains("request rate limit")
                || message.contains("requests per minute")) {
            return Dimension.REQUESTS;
        }
        return OpenAiErrors.limiterOf(error);
    }

    private static boolean isLongQuota(String message) {
        if (message == null) {
            return false;
        }
        String m = message.toLowerCase(Locale.ROOT);
        return m.contains("quota")
                && (m.contains("daily") || m.contains("per day") || m.contains("monthly") || m.contains("per month"));
    }
}
