package dev.sluice.core.provider.gateway;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.wire.LocalRejectionWriter;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;

/**
 * A local rejection in the gateway's own 429 shape,
 * {@code {"error":{"type":"rate_limit_error","code":"rate_limit_exceeded","message":"... Retry after
 * 2026-11-29T10:15:00Z","sluice":{...}}}}: the wait is an instant at the end of the message, as the
 * gateway writes it, rounded up to the second so a caller never comes back early; with no wait to
 * offer the message names no time, as for the gateway's organization bucket. Its clients are
 * OpenAI clients, so {@code sluice} sits inside {@code error}, the only member openai-java keeps.
 */
final class GatewayLocalRejection {

    private GatewayLocalRejection() {}

    static LocalAnswer answer(Rejection rejection, RequestFacts facts, long nowEpochMillis) {
        return LocalRejectionWriter.answer(rejection, facts, (json, r, f) -> envelope(json, r, f, nowEpochMillis));
    }

    private static void envelope(JsonGenerator json, Rejection r, RequestFacts facts, long nowEpochMillis)
            throws IOException {
        json.writeStartObject();
        json.writeObjectFieldStart("error");
        json.writeStringField("type", "rate_limit_error");
        json.writeStringField("code", "rate_limit_exceeded");
        json.writeStringField("message", message(r, facts, nowEpochMillis));
        LocalRejectionWriter.writeSluiceField(json, r, facts);
        json.writeEndObject();
        json.writeEndObject();
    }

    static String message(Rejection r, RequestFacts facts, long nowEpochMillis) {
        String summary = LocalRejectionWriter.summary(r, facts);
        if (!LocalRejectionWriter.waitingHelps(r)) {
            return summary;
        }
        long at = nowEpochMillis + r.retryAfterMillis();
        long seconds = Math.floorDiv(at + 999, 1000);
        return summary + " Retry after " + DateTimeFormatter.ISO_INSTANT.format(Instant.ofEpochSecond(seconds));
    }
}
