package dev.sluice.core.provider.anthropic;

import dev.sluice.config.Dimension;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.json.JsonFields;
import dev.sluice.core.provider.wire.StatusOutcomes;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints;
import java.util.Locale;
import java.util.Map;

/**
 * What Anthropic's error answers mean (providers.md, Anthropic). The envelope is
 * {@code {"type":"error","error":{"type","message","details"?},"request_id"}}:
 *
 * <ul>
 *   <li>429 {@code rate_limit_error}: capacity; the wait is {@code retry-after}; the message names
 *       the limit that ran out ("50,000 input tokens per minute").
 *   <li>429 with {@code error.details.error_code: "enforced_spend_limit_reached"} (a monthly
 *       spend cap, no {@code retry-after}) and {@code billing_error}: policy, never retried.
 *   <li>529 {@code overloaded_error} and 5xx {@code api_error}: transient overload.
 *   <li>400, 401, 403, 404, 413: the request's own fault.
 * </ul>
 *
 * {@code x-should-retry}, which Anthropic sends and its SDKs obey, overrides all of it.
 */
final class AnthropicErrors {

    static final String SPEND_LIMIT_CODE = "enforced_spend_limit_reached";

    private AnthropicErrors() {}

    static ProviderError classify(int status, Headers headers, byte[] body, long nowEpochMillis) {
        Map<String, String> f = body == null || body.length == 0
                ? Map.of()
                : JsonFields.pick(body, "error.type", "error.message", "error.details.error_code");
        String type = f.get("error.type");
        String message = f.get("error.message");
        String code = f.get("error.details.error_code");
        OutcomeClass outcome = outcomeOf(status, type, code);
        long hint = outcome == OutcomeClass.NON_RETRYABLE_POLICY
                ? WaitHints.NONE
                : WaitHints.fromHeaders(headers, nowEpochMillis);
        if (hint == WaitHints.NONE && outcome.retryable()) {
            hint = WaitHints.fromMessage(message, nowEpochMillis);
        }
        outcome = StatusOutcomes.obey(WaitHints.shouldRetry(headers), outcome, status);
        return ProviderError.builder(outcome)
                .retryAfterMillis(hint)
                .limiter(limiterOf(type, code, message))
                .type(type)
                .code(code)
                .message(message)
                .build();
    }

    /**
     * An {@code event: error} inside a successful stream: no status, so the type decides;
     * {@code overloaded_error} (the usual one) and {@code api_error} are transient.
     */
    static ProviderError classifyStreamError(String type, String message, String code, long nowEpochMillis) {
        String t = lower(type);
        OutcomeClass outcome;
        if (SPEND_LIMIT_CODE.equals(code) || t.equals("billing_error")) {
            outcome = OutcomeClass.NON_RETRYABLE_POLICY;
        } else if (t.equals("rate_limit_error")) {
            outcome = OutcomeClass.RETRYABLE_CAPACITY;
        } else if (t.equals("overloaded_error") || t.equals("api_error") || t.equals("timeout_error") || t.isEmpty()) {
            outcome = OutcomeClass.RETRYABLE_OVERLOAD;
        } else {
            outcome = OutcomeClass.NON_RETRYABLE_REQUEST;
        }
        return ProviderError.builder(outcome)
                .retryAfterMillis(WaitHints.fromMessage(message, nowEpochMillis))
                .limiter(limiterOf(type, code, message))
                .type(type)
                .code(code)
                .message(message)
                .build();
    }

    static OutcomeClass outcomeOf(int status, String type, String code) {
        String t = lower(type);
        if (SPEND_LIMIT_CODE.equals(code) || t.equals("billing_error")) {
            return OutcomeClass.NON_RETRYABLE_POLICY;
        }
        if (t.equals("rate_limit_error")) {
            return OutcomeClass.RETRYABLE_CAPACITY;
        }
        if (t.equals("overloaded_error")) {
            return OutcomeClass.RETRYABLE_OVERLOAD;
        }
        return StatusOutcomes.byStatus(status);
    }

    /** The limit a 429 names: "input tokens per minute", "output tokens per minute", "requests per minute"; spend for the cap. */
    static Dimension limiterOf(String type, String code, String message) {
        if (SPEND_LIMIT_CODE.equals(code) || "billing_error".equals(type)) {
            return Dimension.SPEND;
        }
        String m = lower(message);
        if (m.contains("input tokens per")) {
            return Dimension.INPUT_TOKENS;
        }
        if (m.contains("output tokens per")) {
            return Dimension.OUTPUT_TOKENS;
        }
        if (m.contains("requests per")) {
            return Dimension.REQUESTS;
        }
        if (m.contains("tokens per")) {
            return Dimension.TOTAL_TOKENS;
        }
        return null;
    }

    private static String lower(String s) {
        return s == null ? "" : s.toLowerCase(Locale.ROOT);
    }
}
