package dev.sluice.core.provider.gemini;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.wire.StatusOutcomes;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Locale;

/**
 * What the Gemini API's and Vertex AI's error answers mean (providers.md, Gemini):
 *
 * <ul>
 *   <li>429 {@code RESOURCE_EXHAUSTED}: capacity. The wait is {@code RetryInfo.retryDelay}
 *       ({@code "27.4s"}) or the message's "Please retry in 29.083414095s", whichever is longer
 *       when both are given ({@code retryDelay} is often the message's figure cut to whole
 *       seconds, and a retry must not start early).
 *   <li>A {@code QuotaFailure} violation whose {@code quotaId} contains {@code PerDay} (requests
 *       or tokens per day): policy, since it clears only at midnight Pacific time; the hint is the
 *       time until then, for the caller to read, not for a retry.
 *   <li>Vertex's {@code [{"error":{...}}]} without RetryInfo ("Resource exhausted. Please try again
 *       later."): capacity with no hint, so the retry policy backs off.
 *   <li>500 {@code INTERNAL}, 503 {@code UNAVAILABLE}, 504 {@code DEADLINE_EXCEEDED}: overload.
 *   <li>400 {@code INVALID_ARGUMENT} / {@code FAILED_PRECONDITION}, 401, 403, 404: the request's
 *       fault.
 * </ul>
 *
 * {@code x-should-retry} is obeyed where present (Google does not send it; a Sluice hop does).
 */
final class GeminiErrors {

    /** Where Gemini's daily quotas reset. */
    static final ZoneId PACIFIC = ZoneId.of("America/Los_Angeles");

    private GeminiErrors() {}

    static ProviderError classify(int status, Headers headers, byte[] body, long nowEpochMillis) {
        GoogleError error = GoogleError.read(body);
        OutcomeClass outcome = outcomeOf(status, error);
        long hint = outcome == OutcomeClass.NON_RETRYABLE_POLICY && perDay(error)
                ? untilNextPacificMidnight(nowEpochMillis)
                : hint(error, headers, nowEpochMillis);
        outcome = StatusOutcomes.obey(WaitHints.shouldRetry(headers), outcome, status);
        return build(outcome, hint, error);
    }

    /** An error object inside a 200 stream (SSE event or array element): its status string decides. */
    static ProviderError classifyStreamError(GoogleError error, long nowEpochMillis) {
        int status = statusNumber(error);
        OutcomeClass outcome = status > 0 ? outcomeOf(status, error) : outcomeOfStatusName(error.status);
        long hint = outcome == OutcomeClass.NON_RETRYABLE_POLICY && perDay(error)
                ? untilNextPacificMidnight(nowEpochMillis)
                : hint(error, null, nowEpochMillis);
        return build(outcome, hint, error);
    }

    private static ProviderError build(OutcomeClass outcome, long hint, GoogleError error) {
        return ProviderError.builder(outcome)
                .retryAfterMillis(hint)
                .limiter(limiterOf(error))
                .type(error.status)
                .code(error.code)
                .message(error.message)
                .build();
    }

    static OutcomeClass outcomeOf(int status, GoogleError error) {
        if (perDay(error)) {
            return OutcomeClass.NON_RETRYABLE_POLICY;
        }
        if ("RESOURCE_EXHAUSTED".equals(error.status)) {
            return OutcomeClass.RETRYABLE_CAPACITY;
        }
        return StatusOutcomes.byStatus(status);
    }

    private static OutcomeClass outcomeOfStatusName(String name) {
        if (name == null) {
            return OutcomeClass.RETRYABLE_OVERLOAD; // an unnamed failure mid-stream: most likely the server's
        }
        switch (name) {
            case "RESOURCE_EXHAUSTED":
                return OutcomeClass.RETRYABLE_CAPACITY;
            case "UNAVAILABLE":
            case "INTERNAL":
            case "DEADLINE_EXCEEDED":
            case "UNKNOWN":
            case "ABORTED":
                return OutcomeClass.RETRYABLE_OVERLOAD;
            default:
                return OutcomeClass.NON_RETRYABLE_REQUEST;
        }
    }

    /** The longer of RetryInfo's delay and the message's "retry in", else the headers'. */
    private static long hint(GoogleError error, Headers headers, long nowEpochMillis) {
        long delay = WaitHints.goDuration(error.retryDelay);
        long inMessage = WaitHints.fromMessage(error.message, nowEpochMillis);
        long hint = Math.max(delay, inMessage);
        return hint != WaitHints.NONE ? hint : WaitHints.fromHeaders(headers, nowEpochMillis);
    }

    /** A daily quota ran out: {@code GenerateRequestsPerDayPerProjectPerModel-FreeTier} and kin. */
    static boolean perDay(GoogleError error) {
        for (String id : error.quotaIds) {
            if (id.toLowerCase(Locale.ROOT).contains("perday")) {
                return true;
            }
        }
        return false;
    }

    /** The dimension the first quota violation names: input tokens, tokens, or requests. */
    static Dimension limiterOf(GoogleError error) {
        String named = !error.quotaIds.isEmpty()
                ? error.quotaIds.get(0)
                : !error.quotaMetrics.isEmpty() ? error.quotaMetrics.get(0) : null;
        if (named == null) {
            return null;
        }
        String n = named.toLowerCase(Locale.ROOT).replace("_", "");
        if (n.contains("inputtoken")) {
            return Dimension.INPUT_TOKENS;
        }
        if (n.contains("outputtoken")) {
            return Dimension.OUTPUT_TOKENS;
        }
        if (n.contains("token")) {
            return Dimension.TOTAL_TOKENS;
        }
        return n.contains("request") ? Dimension.REQUESTS : null;
    }

    /**
     * Milliseconds until the next midnight in America/Los_Angeles, when Gemini's daily quotas
     * reset; no hint when that midnight is past what a long holds (a clock at its very end).
     */
    static long untilNextPacificMidnight(long nowEpochMillis) {
        try {
            ZonedDateTime now = Instant.ofEpochMilli(nowEpochMillis).atZone(PACIFIC);
            ZonedDateTime midnight = now.toLocalDate().plusDays(1).atStartOfDay(PACIFIC);
            return Math.max(0, midnight.toInstant().toEpochMilli() - nowEpochMillis);
        } catch (ArithmeticException | DateTimeException beyondTime) {
            return WaitHints.NONE;
        }
    }

    private static int statusNumber(GoogleError error) {
        if (error.code == null || error.code.length() > 3) {
            return 0;
        }
        try {
            return Integer.parseInt(error.code);
        } catch (NumberFormatException notANumber) {
            return 0;
        }
    }
}
