package dev.sluice.core.provider.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.config.Dimension;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.wire.LocalRejectionWriter;
import java.io.IOException;

/**
 * A local rejection in OpenAI's own 429 shape, so openai-java (and any OpenAI client) raises its
 * usual rate-limit exception:
 * {@code {"error":{"message","type","param":null,"code":"rate_limit_exceeded","sluice":{...}}}}.
 *
 * <p>Where {@code sluice} sits was checked against openai-java 4.101.0 (see
 * {@code OpenAiSdkLocalRejectionTest}): its error handler keeps only the {@code error} member of
 * the body ({@code ErrorHandler.errorBodyHandler} reads {@code body.get("error")} into an {@code
 * ErrorObject}, whose unknown members survive as additional properties); {@code
 * RateLimitException.body()} serializes that object back. Members beside {@code error} are
 * dropped. So {@code sluice} goes inside {@code error}, where {@code e.body()} shows it; the
 * exception message is {@code "429: " + error.message}, which is why the message is a readable
 * sentence of its own.
 */
final class OpenAiLocalRejection {

    private OpenAiLocalRejection() {}

    static LocalAnswer answer(Rejection rejection, RequestFacts facts) {
        return LocalRejectionWriter.answer(rejection, facts, OpenAiLocalRejection::envelope);
    }

    private static void envelope(JsonGenerator json, Rejection r, RequestFacts facts) throws IOException {
        json.writeStartObject();
        json.writeObjectFieldStart("error");
        json.writeStringField("message", message(r, facts));
        boolean budget = r.decision() == GatewayDecision.BUDGET_EXHAUSTED;
        // a spent budget reads as OpenAI's own "out of quota", which no client retries
        json.writeStringField("type", budget ? "insufficient_quota" : type(r.limiter()));
        json.writeNullField("param");
        json.writeStringField("code", budget ? "insufficient_quota" : "rate_limit_exceeded");
        LocalRejectionWriter.writeSluiceField(json, r, facts);
        json.writeEndObject();
        json.writeEndObject();
    }

    /** The summary, then the wait in OpenAI's phrasing ("Please try again in 2.4s."), which clients already parse. */
    static String message(Rejection r, RequestFacts facts) {
        String summary = LocalRejectionWriter.summary(r, facts);
        return LocalRejectionWriter.waitingHelps(r)
                ? summary + " Please try again in " + goDuration(r.retryAfterMillis()) + "."
                : summary;
    }

    /** OpenAI's {@code type}: {@code tokens} or {@code requests} as its own 429s say; other dimensions by name. */
    static String type(Dimension limiter) {
        if (limiter == null) {
            return "requests";
        }
        switch (limiter) {
            case INPUT_TOKENS:
            case OUTPUT_TOKENS:
            case TOTAL_TOKENS:
                return "tokens";
            case CONCURRENCY:
                return "concurrency";
            case SPEND:
                return "spend";
            default:
                return "requests";
        }
    }

    /** Milliseconds as Go prints a duration, the form OpenAI's messages use: {@code 84ms}, {@code 2.4s}, {@code 1m2.5s}, {@code 1h0m0s}. */
    static String goDuration(long millis) {
        if (millis < 1000) {
            return millis + "ms";
        }
        StringBuilder s = new StringBuilder();
        long hours = millis / 3_600_000;
        long minutes = millis / 60_000 % 60;
        if (hours > 0) {
            s.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            s.append(minutes).append('m');
        }
        long ms = millis % 60_000;
        s.append(ms / 1000);
        if (ms % 1000 != 0) {
            String fraction = String.format("%03d", ms % 1000);
            s.append('.').append(fraction.replaceAll("0+$", ""));
        }
        return s.append('s').toString();
    }
}
