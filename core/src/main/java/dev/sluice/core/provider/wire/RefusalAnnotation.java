package dev.sluice.core.provider.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.retry.OutcomeClass;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Adds the {@code sluice} object (docs/design.md, Local rejections) to a provider's own error answer that Sluice
 * hands back after its retry decision, so the application sees the SDK's usual exception and, in
 * its body, why Sluice stopped ({@code admitted_then_provider_rejected},
 * {@code retry_budget_exhausted}). The object goes inside the provider's {@code error} object
 * (OpenAI, Azure, Anthropic, Gemini, also inside Vertex's one-element array), where the SDKs keep
 * it; else at the end of the top-level object. Everything else is copied token by token.
 */
public final class RefusalAnnotation {

    private static final JsonFactory FACTORY = new JsonFactory();

    private RefusalAnnotation() {}

    /**
     * The body with the {@code sluice} object added, or null when it is not a JSON object (or
     * array of them) or already names Sluice: the caller then hands the answer back as it came.
     */
    public static byte[] annotate(byte[] body, Rejection rejection, RequestFacts facts, OutcomeClass outcome) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 512);
            boolean injected = false;
            try (JsonParser in = FACTORY.createParser(body);
                    JsonGenerator json = FACTORY.createGenerator(out)) {
                JsonToken first = in.nextToken();
                if (first != JsonToken.START_OBJECT && first != JsonToken.START_ARRAY) {
                    return null;
                }
                int depth = 0;
                int targetDepth = -1;
                boolean errorFieldNext = false;
                for (JsonToken t = first; t != null; t = in.nextToken()) {
                    if (t == JsonToken.FIELD_NAME) {
                        String name = in.getCurrentName();
                        if ("sluice".equals(name)) {
                            return null; // another Sluice hop already said why
                        }
                        errorFieldNext = !injected && targetDepth < 0 && depth <= 2 && "error".equals(name);
                    } else if (t == JsonToken.START_OBJECT) {
                        if (errorFieldNext) {
                            targetDepth = depth + 1;
                        }
                        errorFieldNext = false;
                    } else {
                        if (t == JsonToken.END_OBJECT
                                && !injected
                                && (depth == targetDepth || depth == 1 && first == JsonToken.START_OBJECT)) {
                            write(json, rejection, facts, outcome);
                            injected = true;
                        }
                        if (t != JsonToken.START_ARRAY) {
                            errorFieldNext = false;
                        }
                    }
                    json.copyCurrentEvent(in);
                    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                        depth++;
                    } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                        depth--;
                        if (depth == 0) {
                            break;
                        }
                    }
                }
            }
            return injected ? out.toByteArray() : null;
        } catch (IOException | RuntimeException notJson) {
            return null;
        }
    }

    private static void write(JsonGenerator json, Rejection r, RequestFacts facts, OutcomeClass outcome)
            throws IOException {
        LocalRejectionWriter.writeSluiceField(json, r, facts, typeOf(outcome));
    }

    /** What the provider refused for, in the words of the {@code sluice.type} field. */
    static String typeOf(OutcomeClass outcome) {
        switch (outcome) {
            case RETRYABLE_OVERLOAD:
                return "overloaded";
            case NON_RETRYABLE_POLICY:
                return "policy";
            case NON_RETRYABLE_REQUEST:
                return "invalid_request";
            default:
                return "rate_limited";
        }
    }
}
