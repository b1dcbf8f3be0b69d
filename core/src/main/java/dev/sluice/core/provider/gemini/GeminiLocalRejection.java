package dev.sluice.core.provider.gemini;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.JsonWalker;
import dev.sluice.core.provider.wire.LocalRejectionWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A local rejection in Google's own 429 shape, for the Gemini API and Vertex AI alike:
 *
 * <pre>{@code
 * {"error":{"code":429,"message":"... Please retry in 2.4s.","status":"RESOURCE_EXHAUSTED",
 *   "details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.4s"},
 *              {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"REJECTED_LOCALLY",
 *               "domain":"sluice.dev","metadata":{"gateway_decision":"rejected_locally",...}}],
 *   "sluice":{...}}}
 * }</pre>
 *
 * <p>Where the {@code sluice} data must sit was checked against google-genai 2.0.0 (see {@code
 * GeminiSdkTest}): its {@code ApiException} keeps only {@code code}, {@code status} and a message
 * built from {@code error.message} followed by "Details:" and the JSON of each {@code details}
 * element. A {@code sluice} member beside {@code details} never reaches the application. So the
 * decision also travels as a standard {@code google.rpc.ErrorInfo} detail (domain
 * {@code sluice.dev}, reason the decision, metadata the {@code sluice} object flattened to string
 * values as ErrorInfo requires, nested keys dotted: {@code queue.waited_ms}), which the SDK prints
 * into {@code e.message()} as one line of JSON. {@code error.sluice} stays for clients that keep
 * the body (raw HTTP, other SDKs). Always an object, never Vertex's array form: google-genai reads
 * nothing from an array body.
 */
final class GeminiLocalRejection {

    static final String DOMAIN = "sluice.dev";
    private static final JsonFactory FACTORY = new JsonFactory();

    private GeminiLocalRejection() {}

    static LocalAnswer answer(Rejection rejection, RequestFacts facts) {
        return LocalRejectionWriter.answer(rejection, facts, GeminiLocalRejection::envelope);
    }

    private static void envelope(JsonGenerator json, Rejection r, RequestFacts facts) throws IOException {
        json.writeStartObject();
        json.writeObjectFieldStart("error");
        json.writeNumberField("code", 429);
        json.writeStringField("message", message(r, facts));
        json.writeStringField("status", "RESOURCE_EXHAUSTED");
        json.writeArrayFieldStart("details");
        if (LocalRejectionWriter.waitingHelps(r)) {
            json.writeStartObject();
            json.writeStringField("@type", "type.googleapis.com/google.rpc.RetryInfo");
            json.writeStringField("retryDelay", duration(r.retryAfterMillis()));
            json.writeEndObject();
        }
        json.writeStartObject();
        json.writeStringField("@type", "type.googleapis.com/google.rpc.ErrorInfo");
        json.writeStringField("reason", r.decision().wireName().toUpperCase(Locale.ROOT));
        json.writeStringField("domain", DOMAIN);
        json.writeObjectFieldStart("metadata");
        for (Map.Entry<String, String> e : flatSluice(r, facts).entrySet()) {
            json.writeStringField(e.getKey(), e.getValue());
        }
        json.writeEndObject();
        json.writeEndObject();
        json.writeEndArray();
        LocalRejectionWriter.writeSluiceField(json, r, facts);
        json.writeEndObject();
        json.writeEndObject();
    }

    /** The summary, then the wait in Gemini's own phrasing ("Please retry in 2.4s."), which clients already parse. */
    static String message(Rejection r, RequestFacts facts) {
        String summary = LocalRejectionWriter.summary(r, facts);
        return LocalRejectionWriter.waitingHelps(r)
                ? summary + " Please retry in " + duration(r.retryAfterMillis()) + "."
                : summary;
    }

    /** A protobuf JSON duration: seconds with the fraction trimmed, {@code 2.4s}, {@code 3s}, {@code 0.05s}. */
    static String duration(long millis) {
        long ms = Math.max(0, millis);
        String fraction = String.format("%03d", ms % 1000).replaceAll("0+$", "");
        return ms / 1000 + (fraction.isEmpty() ? "" : "." + fraction) + "s";
    }

    /** The {@code sluice} object as ErrorInfo metadata: the same writer, flattened to strings. */
    static Map<String, String> flatSluice(Rejection r, RequestFacts facts) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            json.writeStartObject();
            LocalRejectionWriter.writeSluiceField(json, r, facts);
            json.writeEndObject();
        }
        Map<String, String> flat = new LinkedHashMap<>();
        JsonWalker.walk(out.toByteArray(), new JsonVisitor() {
            @Override
            public void scalar(String path, JsonParser value) throws IOException {
                String text = JsonScalars.text(value);
                if (text != null && path.startsWith("sluice.")) {
                    flat.put(path.substring(7), text);
                }
            }
        });
        return flat;
    }
}
