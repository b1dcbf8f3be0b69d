package dev.sluice.core.provider.bedrock;

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
 * What Bedrock Runtime's error answers mean. The error type is in {@code x-amzn-ErrorType}
 * ({@code ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/}), else in the
 * body's {@code __type} or {@code code} (a {@code namespace#Name} form too), the message in
 * {@code message}; Bedrock sends no wait hint and no rate-limit headers.
 *
 * <ul>
 *   <li>429 {@code ThrottlingException} ("Too many requests" / "Too many tokens, please wait
 *       before trying again."): capacity.
 *   <li>{@code ServiceUnavailableException} (503), {@code InternalServerException} (500),
 *       {@code ModelNotReadyException} (429, a model being loaded: not a quota),
 *       {@code ModelTimeoutException} (408), {@code ModelStreamErrorException}: transient overload.
 *   <li>{@code ServiceQuotaExceededException}: policy (a quota that waiting does not refill).
 *   <li>{@code ValidationException} (400), {@code AccessDeniedException} (403),
 *       {@code ResourceNotFoundException} (404), {@code ModelErrorException} (424): the request's
 *       own fault.
 * </ul>
 *
 * {@code x-should-retry} is obeyed where present (Bedrock does not send it; a Sluice hop does).
 */
final class BedrockErrors {

    static final String THROTTLING = "ThrottlingException";

    private BedrockErrors() {}

    static ProviderError classify(int status, Headers headers, byte[] body, long nowEpochMillis) {
        Map<String, String> f = body == null || body.length == 0
                ? Map.of()
                : JsonFields.pick(body, "__type", "code", "message", "Message", "error.message");
        String type = errorType(headers == null ? null : headers.first("x-amzn-errortype"));
        if (type == null) {
            type = errorType(f.get("__type"));
        }
        if (type == null) {
            type = errorType(f.get("code"));
        }
        String message = f.get("message") != null
                ? f.get("message")
                : f.get("Message") != null ? f.get("Message") : f.get("error.message"); // the last: a proxy's envelope
        OutcomeClass outcome = outcomeOf(status, type);
        long hint = outcome.retryable() ? WaitHints.fromHeaders(headers, nowEpochMillis) : WaitHints.NONE;
        if (hint == WaitHints.NONE && outcome.retryable()) {
            hint = WaitHints.fromMessage(message, nowEpochMillis);
        }
        outcome = StatusOutcomes.obey(WaitHints.shouldRetry(headers), outcome, status);
        return ProviderError.builder(outcome)
                .retryAfterMillis(hint)
                .limiter(outcome == OutcomeClass.RETRYABLE_CAPACITY ? limiterOf(message) : null)
                .type(type)
                .code(type)
                .message(message)
                .build();
    }

    /**
     * A message of type {@code exception} inside a successful event stream: its
     * {@code :exception-type} ({@code throttlingException}, {@code modelStreamErrorException}...)
     * decides; an unnamed one is taken for a transient failure.
     */
    static ProviderError classifyStreamError(String exceptionType, String message, long nowEpochMillis) {
        OutcomeClass named = namedOutcome(exceptionType);
        OutcomeClass outcome = named != null ? named : OutcomeClass.RETRYABLE_OVERLOAD;
        return ProviderError.builder(outcome)
                .retryAfterMillis(outcome.retryable() ? WaitHints.fromMessage(message, nowEpochMillis) : WaitHints.NONE)
                .limiter(outcome == OutcomeClass.RETRYABLE_CAPACITY ? limiterOf(message) : null)
                .type(exceptionType)
                .code(exceptionType)
                .message(message)
                .build();
    }

    static OutcomeClass outcomeOf(int status, String type) {
        OutcomeClass named = namedOutcome(type);
        return named != null ? named : StatusOutcomes.byStatus(status);
    }

    /** The class an error type means, whatever the status; null for a type Bedrock does not name. */
    private static OutcomeClass namedOutcome(String type) {
        switch (lowerFirst(type)) {
            case "throttlingException":
                return OutcomeClass.RETRYABLE_CAPACITY;
            case "serviceUnavailableException":
            case "internalServerException":
            case "modelNotReadyException":
            case "modelTimeoutException":
            case "modelStreamErrorException":
                return OutcomeClass.RETRYABLE_OVERLOAD;
            case "serviceQuotaExceededException":
                return OutcomeClass.NON_RETRYABLE_POLICY;
            case "validationException":
            case "accessDeniedException":
            case "resourceNotFoundException":
            case "modelErrorException":
                return OutcomeClass.NON_RETRYABLE_REQUEST;
            default:
                return null;
        }
    }

    /** "Too many tokens" is the tokens-per-minute quota, "Too many requests" the requests one. */
    static Dimension limiterOf(String message) {
        String m = message == null ? "" : message.toLowerCase(Locale.ROOT);
        if (m.contains("token")) {
            return Dimension.TOTAL_TOKENS;
        }
        return m.contains("request") ? Dimension.REQUESTS : null;
    }

    /** {@code ThrottlingException:http://...} and {@code com.amazon.bedrock#ThrottlingException} become {@code ThrottlingException}. */
    static String errorType(String raw) {
        if (raw == null) {
            return null;
        }
        String s = raw.trim();
        int colon = s.indexOf(':');
        if (colon >= 0) {
            s = s.substring(0, colon);
        }
        int hash = s.lastIndexOf('#');
        if (hash >= 0) {
            s = s.substring(hash + 1);
        }
        return s.isEmpty() ? null : s;
    }

    private static String lowerFirst(String type) {
        if (type == null || type.isEmpty()) {
            return "";
        }
        return Character.toLowerCase(type.charAt(0)) + type.substring(1);
    }
}
