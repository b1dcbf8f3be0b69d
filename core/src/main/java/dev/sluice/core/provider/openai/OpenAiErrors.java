package dev.sluice.core.provider.openai;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.wire.StatusOutcomes;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What OpenAI's error answers mean (providers.md, OpenAI): a 429 {@code rate_limit_exceeded} is
 * capacity unless the request alone exceeds the limit ("Request too large ... Limit 30000,
 * Requested 34307", which waiting never fixes); {@code insufficient_quota} and spend-limit codes
 * are policy; {@code slow_down} is capacity; {@code server_is_overloaded} is overload; the rest
 * follows the status, and {@code x-should-retry} overrides all of it. Also classifies errors that
 * arrive inside a stream.
 */
public final class OpenAiErrors {

    private static final Pattern LIMIT_REQUESTED =
            Pattern.compile("Limit (\\d+), (?:Used (\\d+), )?Requested (\\d+)", Pattern.CASE_INSENSITIVE);

    private OpenAiErrors() {}

    /** Classifies an HTTP error answer; the wait hint is the headers' ({@code retry-after-ms} > {@code retry-after}), else the message's. */
    public static ProviderError classify(int status, Headers headers, byte[] body, long nowEpochMillis) {
        OpenAiErrorBody error = OpenAiErrorBody.read(body);
        long hint = WaitHints.fromHeaders(headers, nowEpochMillis);
        if (hint == WaitHints.NONE) {
            hint = WaitHints.fromMessage(error.message(), nowEpochMillis);
        }
        OutcomeClass outcome = StatusOutcomes.obey(WaitHints.shouldRetry(headers), outcomeOf(status, error), status);
        return ProviderError.builder(outcome)
                .retryAfterMillis(hint)
                .limiter(limiterOf(error))
                .type(error.type())
                .code(error.code())
                .message(error.message())
                .build();
    }

    /**
     * Classifies an error event inside a successful stream (Responses {@code response.failed} or
     * {@code error}, a Chat Completions chunk carrying {@code error}): there is no status, so the
     * code decides, and an unknown code counts as a fault of the request.
     */
    public static ProviderError classifyStreamError(OpenAiErrorBody error, long nowEpochMillis) {
        OutcomeClass outcome;
        String code = lower(error.code()) + " " + lower(error.type());
        if (isBilling(error)) {
            outcome = OutcomeClass.NON_RETRYABLE_POLICY;
        } else if (code.contains("rate_limit") || code.contains("slow_down")) {
            outcome = tooLarge(error) ? OutcomeClass.NON_RETRYABLE_REQUEST : OutcomeClass.RETRYABLE_CAPACITY;
        } else if (code.contains("overloaded") || code.contains("server_error") || code.contains("timeout")) {
            outcome = OutcomeClass.RETRYABLE_OVERLOAD;
        } else {
            outcome = OutcomeClass.NON_RETRYABLE_REQUEST;
        }
        return ProviderError.builder(outcome)
                .retryAfterMillis(WaitHints.fromMessage(error.message(), nowEpochMillis))
                .limiter(limiterOf(error))
                .type(error.type())
                .code(error.code())
                .message(error.message())
                .build();
    }

    /** The class an answer's status and body give, before {@code x-should-retry}; Azure builds on it. */
    public static OutcomeClass outcomeOf(int status, OpenAiErrorBody error) {
        if (isBilling(error)) {
            return OutcomeClass.NON_RETRYABLE_POLICY;
        }
        if (tooLarge(error)) {
            return OutcomeClass.NON_RETRYABLE_REQUEST;
        }
        String code = lower(error.code());
        if (code.equals("slow_down") || code.equals("rate_limit_exceeded")) {
            return OutcomeClass.RETRYABLE_CAPACITY;
        }
        if (code.equals("server_is_overloaded")) {
            return OutcomeClass.RETRYABLE_OVERLOAD;
        }
        return StatusOutcomes.byStatus(status);
    }

    /** {@code insufficient_quota} and spend caps: the account cannot pay, so no wait helps. */
    public static boolean isBilling(OpenAiErrorBody error) {
        String type = lower(error.type());
        String code = lower(error.code());
        return type.equals("insufficient_quota")
                || code.equals("insufficient_quota")
                || code.contains("spend_limit")
                || code.startsWith("billing_");
    }

    /** The request alone exceeds the limit: OpenAI says "Request too large", or Requested exceeds Limit. */
    static boolean tooLarge(OpenAiErrorBody error) {
        String message = error.message();
        if (message == null) {
            return false;
        }
        if (lower(message).contains("request too large")) {
            return true;
        }
        Matcher m = LIMIT_REQUESTED.matcher(message);
        if (m.find() && m.group(2) == null) {
            try {
                return Long.parseLong(m.group(3)) > Long.parseLong(m.group(1));
            } catch (NumberFormatException tooManyDigits) {
                return false;
            }
        }
        return false;
    }

    /** The dimension the error names: {@code type} tokens/requests, else the message's "(TPM)" / "(RPD)", else spend for billing. */
    public static Dimension limiterOf(OpenAiErrorBody error) {
        if (isBilling(error)) {
            return Dimension.SPEND;
        }
        String type = lower(error.type());
        if (type.startsWith("tokens")) {
            return Dimension.TOTAL_TOKENS;
        }
        if (type.startsWith("requests")) {
            return Dimension.REQUESTS;
        }
        String message = lower(error.message());
        if (message.contains("(tpm)") || message.contains("(tpd)") || message.contains("tokens per")) {
            return Dimension.TOTAL_TOKENS;
        }
        if (message.contains("(rpm)") || message.contains("(rpd)") || message.contains("requests per")) {
            return Dimension.REQUESTS;
        }
        return null;
    }

    private static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }
}
