package dev.sluice.core.provider.azure;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.wire.LocalRejectionWriter;
import java.io.IOException;

/**
 * A local rejection in Azure OpenAI's 429 shape, {@code {"error":{"code":"429","message":"...
 * Please retry after N seconds.","sluice":{...}}}}. {@code sluice} sits inside {@code error} for
 * the same reason as for OpenAI: openai-java, which also talks to Azure, keeps only that member.
 */
final class AzureLocalRejection {

    private AzureLocalRejection() {}

    static LocalAnswer answer(Rejection rejection, RequestFacts facts) {
        return LocalRejectionWriter.answer(rejection, facts, AzureLocalRejection::envelope);
    }

    private static void envelope(JsonGenerator json, Rejection r, RequestFacts facts) throws IOException {
        json.writeStartObject();
        json.writeObjectFieldStart("error");
        json.writeStringField("code", "429");
        json.writeStringField("message", message(r, facts));
        LocalRejectionWriter.writeSluiceField(json, r, facts);
        json.writeEndObject();
        json.writeEndObject();
    }

    static String message(Rejection r, RequestFacts facts) {
        String summary = LocalRejectionWriter.summary(r, facts);
        if (!LocalRejectionWriter.waitingHelps(r)) {
            return summary;
        }
        long seconds = (r.retryAfterMillis() + 999) / 1000;
        return summary + " Please retry after " + seconds + (seconds == 1 ? " second." : " seconds.");
    }
}
