package dev.sluice.core.provider.gateway;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.compatible.CompatibleErrors;
import dev.sluice.core.provider.openai.OpenAiErrorBody;
import dev.sluice.core.provider.wire.StatusOutcomes;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints;
import java.util.Locale;

/**
 * What the fixed-window gateway's refusals mean (providers.md, "A deployment with fixed windows
 * and no headers", and the operator's limits page):
 *
 * <ul>
 *   <li>429 {@code rate_limit_error} / {@code rate_limit_exceeded} from a per-key bucket ends with
 *       "Retry after 2026-11-29T10:15:00Z", the end of the fixed window: capacity, with the time
 *       until that instant as the hint. From the organization bucket it names no time: capacity
 *       with no hint, so the retry policy backs off.
 *   <li>The per-key concurrency cap (8 in flight) answers "the same 429", at once, with no queue
 *       behind it. The page gives no wording, so a 429 whose message or code speaks of concurrency
 *       or requests in flight is read as a {@link Dimension#CONCURRENCY} refusal: capacity with no
 *       hint, retried after the policy's short backoff, never as a pause of the whole provider
 *       (one slot frees as soon as any call of that key ends). Any other 429 without a time reads
 *       the same way, without the limiter, so an unrecognised wording costs nothing.
 *   <li>402 {@code budget_exceeded} (daily spend cap) and 409 {@code no_endpoint_for_policy}
 *       (residency filter): policy, retrying cannot help.
 *   <li>413: the body is over 1 MB, the request's own fault.
 * </ul>
 *
 * Neither {@code retry-after} nor {@code x-ratelimit-*} is ever sent; one is still honoured if a
 * proxy in front adds it, and so is {@code x-should-retry}.
 */
final class GatewayErrors {

    static final String BUDGET_EXCEEDED = "budget_exceeded";
    static final String NO_ENDPOINT_FOR_POLICY = "no_endpoint_for_policy";

    private GatewayErrors() {}

    static ProviderError classify(int status, Headers headers, byte[] body, long nowEpochMillis) {
        OpenAiErrorBody error = CompatibleErrors.read(body);
        String code = lower(error.code());
        OutcomeClass outcome;
        Dimension limiter = null;
        long hint = WaitHints.NONE;
        if (status == 402 || code.equals(BUDGET_EXCEEDED)) {
            outcome = OutcomeClass.NON_RETRYABLE_POLICY;
            limiter = Dimension.SPEND;
        } else if (status == 409 || code.equals(NO_ENDPOINT_FOR_POLICY)) {
            outcome = OutcomeClass.NON_RETRYABLE_POLICY;
        } else if (status == 413) {
            outcome = OutcomeClass.NON_RETRYABLE_REQUEST;
        } else if (status == 429) {
            outcome = OutcomeClass.RETRYABLE_CAPACITY;
            if (isConcurrency(error)) {
                limiter = Dimension.CONCURRENCY;
            } else {
                hint = WaitHints.fromHeaders(headers, nowEpochMillis);
                if (hint == WaitHints.NONE) {
                    hint = WaitHints.fromMessage(error.message(), nowEpochMillis);
                }
                limiter = Dimension.REQUESTS; // its buckets count calls
            }
        } else {
            outcome = StatusOutcomes.byStatus(status);
        }
        outcome = StatusOutcomes.obey(WaitHints.shouldRetry(headers), outcome, status);
        return ProviderError.builder(outcome)
                .retryAfterMillis(hint)
                .limiter(limiter)
                .type(error.type())
                .code(error.code())
                .message(error.message())
                .build();
    }

    /** A refusal of the in-flight cap: the message or code speaks of concurrency or requests in flight. */
    static boolean isConcurrency(OpenAiErrorBody error) {
        String text = lower(error.code()) + ' ' + lower(error.message());
        return text.contains("concurren")
                || text.contains("in flight")
                || text.contains("in-flight")
                || text.contains("inflight")
                || text.contains("simultaneous")
                || text.contains("parallel requests");
    }

    private static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }
}
