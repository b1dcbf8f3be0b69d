package dev.sluice.core.provider.compatible;

import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.json.JsonFields;
import dev.sluice.core.provider.openai.OpenAiErrorBody;
import dev.sluice.core.provider.openai.OpenAiErrors;
import dev.sluice.core.provider.wire.StatusOutcomes;
import dev.sluice.core.retry.OutcomeClass;
import dev.sluice.core.retry.WaitHints;
import java.util.Map;

/**
 * What an OpenAI-compatible server's error answers mean: OpenAI's rules (providers.md) over the
 * error shapes such servers actually send: OpenAI's envelope (Groq, newer vLLM, LiteLLM), the same
 * fields at the top level ({@code {"object":"error","message","type","code"}}: Mistral, older vLLM),
 * {@code {"error":"text"}} and FastAPI's {@code {"detail":"text"}}. The wait is
 * {@code retry-after-ms} or {@code retry-after}, else the message's "Please try again in 5.289s".
 */
public final class CompatibleErrors {

    private CompatibleErrors() {}

    public static ProviderError classify(int status, Headers headers, byte[] body, long nowEpochMillis) {
        OpenAiErrorBody error = read(body);
        long hint = WaitHints.fromHeaders(headers, nowEpochMillis);
        if (hint == WaitHints.NONE) {
            hint = WaitHints.fromMessage(error.message(), nowEpochMillis);
        }
        OutcomeClass outcome =
                StatusOutcomes.obey(WaitHints.shouldRetry(headers), OpenAiErrors.outcomeOf(status, error), status);
        return ProviderError.builder(outcome)
                .retryAfterMillis(hint)
                .limiter(OpenAiErrors.limiterOf(error))
                .type(error.type())
                .code(error.code())
                .message(error.message())
                .build();
    }

    /** The error in whichever of the shapes above it came. */
    public static OpenAiErrorBody read(byte[] body) {
        if (body == null || body.length == 0) {
            return OpenAiErrorBody.of(null, null, null);
        }
        Map<String, String> f = JsonFields.pick(
                body, "error.message", "error.type", "error.code", "error", "message", "type", "code", "detail");
        String message = first(f.get("error.message"), f.get("error"), f.get("message"), f.get("detail"));
        String type = first(f.get("error.type"), f.get("type"));
        String code = first(f.get("error.code"), f.get("code"));
        return OpenAiErrorBody.of(message, type, code);
    }

    private static String first(String... values) {
        for (String v : values) {
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}
