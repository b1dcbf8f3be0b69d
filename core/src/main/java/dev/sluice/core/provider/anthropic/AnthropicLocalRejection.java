package dev.sluice.core.provider.anthropic;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.wire.LocalRejectionWriter;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A local rejection in Anthropic's own 429 shape, so anthropic-java (and any Anthropic client)
 * raises its usual rate-limit exception:
 * {@code {"type":"error","error":{"type":"rate_limit_error","message","sluice":{...}},"request_id":"req_..."}},
 * with a {@code request-id} header as Anthropic sends on every answer.
 *
 * <p>Where {@code sluice} sits was checked against anthropic-java 3.14.0 (see {@code
 * AnthropicSdkTest}): unlike openai-java, its error handler keeps the whole body as a {@code
 * JsonValue}, so {@code RateLimitException.body()} is the envelope and the exception message is
 * {@code "429: " + body}. {@code sluice} goes inside {@code error}, beside the fields every
 * Anthropic client reads ({@code e.body() → error → sluice}), where it also survives clients
 * that keep only the {@code error} member. The message is a readable sentence of its own, ending
 * with the wait in words ("Please try again in 2.4 seconds.") that wait-hint parsers read.
 */
final class AnthropicLocalRejection {

    private AnthropicLocalRejection() {}

    static LocalAnswer answer(Rejection rejection, RequestFacts facts) {
        String requestId = requestId();
        LocalAnswer plain =
                LocalRejectionWriter.answer(rejection, facts, (json, r, f) -> envelope(json, r, f, requestId));
        Map<String, List<String>> headers = new LinkedHashMap<>(plain.headers());
        headers.put("request-id", List.of(requestId));
        return LocalAnswer.of(plain.status(), headers, plain.body());
    }

    private static void envelope(JsonGenerator json, Rejection r, RequestFacts facts, String requestId)
            throws IOException {
        json.writeStartObject();
        json.writeStringField("type", "error");
        json.writeObjectFieldStart("error");
        json.writeStringField("type", "rate_limit_error");
        json.writeStringField("message", message(r, facts));
        LocalRejectionWriter.writeSluiceField(json, r, facts);
        json.writeEndObject();
        json.writeStringField("request_id", requestId);
        json.writeEndObject();
    }

    static String message(Rejection r, RequestFacts facts) {
        return LocalRejectionWriter.summaryWithWait(r, facts);
    }

    /** Milliseconds as decimal seconds without trailing zeros: 2400 → {@code 2.4}, 3000 → {@code 3}. */
    static String seconds(long millis) {
        return LocalRejectionWriter.seconds(millis);
    }

    /** Anthropic's ids look like {@code req_011CQ...}; Sluice's own are marked as such. */
    private static String requestId() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "req_sluice_" + Long.toHexString(random.nextLong() | Long.MIN_VALUE)
                + Long.toHexString(random.nextLong() | Long.MIN_VALUE).substring(0, 8);
    }
}
