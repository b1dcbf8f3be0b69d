package dev.sluice.core.provider.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.core.BudgetStatus;
import dev.sluice.core.GatewayDecision;
import dev.sluice.core.Rejection;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.RequestFacts;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the HTTP 429 every adapter answers a local rejection with: the provider's own error
 * envelope (written by the adapter) around the {@code sluice} object (docs/design.md, Local rejections), and the
 * headers that make SDKs raise their rate-limit exception without retrying ({@code x-should-retry:
 * false}) while telling the application when to come back ({@code retry-after},
 * {@code retry-after-ms}). {@code x-sluice-decision} marks the answer as Sluice's own, so an
 * instrumentation or a second Sluice hop never mistakes it for the provider's.
 *
 * <p>The body names only this call's tenant, key id and estimates: never other tenants' usage,
 * prompts or raw keys.
 */
public final class LocalRejectionWriter {

    /** The header marking a local answer; its value is the {@code gateway_decision}. */
    public static final String DECISION_HEADER = "x-sluice-decision";

    private static final JsonFactory FACTORY = new JsonFactory();

    /** Writes a provider's error envelope; calls {@link #writeSluiceField} where the SDK will keep it. */
    public interface Envelope {
        void write(JsonGenerator json, Rejection rejection, RequestFacts facts) throws IOException;
    }

    private LocalRejectionWriter() {}

    /**
     * The whole answer: status 429, standard headers and the envelope's body. Never throws; if the
     * envelope fails, a minimal body with the decision still goes out.
     *
     * @param facts what the adapter read from the request; may be null when it read nothing
     */
    public static LocalAnswer answer(Rejection given, RequestFacts facts, Envelope envelope) {
        Rejection rejection = given != null
                ? given
                : Rejection.builder(GatewayDecision.REJECTED_LOCALLY).build();
        byte[] body;
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(512);
            try (JsonGenerator json = FACTORY.createGenerator(out)) {
                envelope.write(json, rejection, facts);
            }
            body = out.toByteArray();
        } catch (IOException | RuntimeException e) {
            body = ("{\"error\":{\"message\":\"Rate limited by Sluice\",\"sluice\":{\"type\":\"rate_limited\","
                            + "\"gateway_decision\":\"" + rejection.decision().wireName() + "\"}}}")
                    .getBytes(StandardCharsets.UTF_8);
        }
        return LocalAnswer.of(429, headers(rejection), body);
    }

    /** Status-independent headers of a local rejection, names in lower case. */
    public static Map<String, List<String>> headers(Rejection rejection) {
        long ms = rejection.retryAfterMillis();
        Map<String, List<String>> h = new LinkedHashMap<>();
        h.put("content-type", List.of("application/json"));
        h.put("retry-after", List.of(Long.toString(ceilSeconds(ms))));
        h.put("retry-after-ms", List.of(Long.toString(ms)));
        h.put("x-should-retry", List.of("false"));
        h.put(DECISION_HEADER, List.of(rejection.decision().wireName()));
        return h;
    }

    /**
     * The summary, then the wait in words ("Please try again in 2.4 seconds.") that wait-hint
     * parsers read, when waiting helps: the message of the error shapes that have one sentence
     * (Anthropic's, Bedrock's).
     */
    public static String summaryWithWait(Rejection r, RequestFacts facts) {
        String summary = summary(r, facts);
        return waitingHelps(r)
                ? summary + " Please try again in " + seconds(r.retryAfterMillis()) + " seconds."
                : summary;
    }

    /** Milliseconds as decimal seconds without trailing zeros: 2400 → {@code 2.4}, 3000 → {@code 3}. */
    public static String seconds(long millis) {
        String s = millis / 1000 + "." + String.format("%03d", millis % 1000);
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /** Writes the field {@code "sluice": {...}} into the object the generator is in; null values are left out. */
    public static void writeSluiceField(JsonGenerator json, Rejection r, RequestFacts facts) throws IOException {
        writeSluiceField(json, r, facts, "rate_limited");
    }

    /** As {@link #writeSluiceField(JsonGenerator, Rejection, RequestFacts)}, with the given {@code type}. */
    public static void writeSluiceField(JsonGenerator json, Rejection r, RequestFacts facts, String type)
            throws IOException {
        json.writeObjectFieldStart("sluice");
        json.writeStringField("type", type);
        json.writeStringField("gateway_decision", r.decision().wireName());
        stringField(json, "limiter", r.limiter() == null ? null : r.limiter().configName());
        stringField(json, "scope", r.scope());
        stringField(json, "provider", firstNonNull(r.provider(), facts == null ? null : facts.providerKind()));
        stringField(json, "model", model(r, facts));
        stringField(json, "traffic_class", r.trafficClass());
        stringField(json, "tenant", r.tenant());
        stringField(json, "api_key_id", firstNonNull(r.apiKeyId(), facts == null ? null : facts.apiKeyId()));
        json.writeNumberField("retry_after_ms", r.retryAfterMillis());
        json.writeNumberField(
                "estimated_input_tokens",
                r.estimatedInputTokens() > 0 || facts == null
                        ? r.estimatedInputTokens()
                        : facts.estimatedInputTokens());
        json.writeNumberField("estimated_output_tokens", r.estimatedOutputTokens());
        if (r.queueReason() != null || r.waitedMillis() > 0) {
            json.writeObjectFieldStart("queue");
            json.writeNumberField("waited_ms", r.waitedMillis());
            stringField(json, "reason", r.queueReason());
            json.writeEndObject();
        }
        stringField(json, "trace_id", r.traceId());
        stringField(json, "route", r.route());
        if (r.budget() != null) {
            writeBudget(json, r.budget());
        }
        json.writeEndObject();
    }

    /**
     * The budget that refused the call: its limit, amount, what is spent, reserved and left (in
     * the config's currency unit, and exactly in micro-units), and when its period resets.
     */
    private static void writeBudget(JsonGenerator json, BudgetStatus b) throws IOException {
        json.writeObjectFieldStart("budget");
        json.writeStringField("limit", b.limitId());
        stringField(json, "scope", b.scope());
        json.writeStringField("currency", b.currency());
        json.writeStringField("period", b.period());
        json.writeNumberField("amount", b.amountMicros() / 1e6);
        json.writeNumberField("spent", b.spentMicros() / 1e6);
        json.writeNumberField("reserved", b.reservedMicros() / 1e6);
        json.writeNumberField("left", b.leftMicros() / 1e6);
        json.writeNumberField("amount_micros", b.amountMicros());
        json.writeNumberField("left_micros", b.leftMicros());
        if (b.resetsAtMillis() > 0) {
            json.writeStringField(
                    "resets_at", Instant.ofEpochMilli(b.resetsAtMillis()).toString());
        }
        json.writeEndObject();
    }

    /**
     * One readable sentence for the provider's {@code message} field, e.g. "Rate limit reached in
     * Sluice for gpt-4o-mini on output_tokens (scope openai/prod/tenant=search): needs 4200, 1900
     * free, refills in 2.4 s." Adapters append the wait in their provider's own phrasing.
     */
    public static String summary(Rejection r, RequestFacts facts) {
        StringBuilder s = new StringBuilder(160).append(lead(r.decision()));
        String model = model(r, facts);
        if (model != null) {
            s.append(" for ").append(model);
        }
        if (r.limiter() != null) {
            s.append(" on ").append(r.limiter().configName());
        }
        if (r.scope() != null) {
            s.append(" (scope ").append(r.scope()).append(')');
        }
        if (r.detail() != null) {
            s.append(": ").append(r.detail());
        }
        if (r.queueReason() != null) {
            s.append("; waited ")
                    .append(r.waitedMillis())
                    .append(" ms in the ")
                    .append(r.trafficClass() == null ? "default" : r.trafficClass())
                    .append(" queue (")
                    .append(r.queueReason())
                    .append(')');
        }
        return s.append('.').toString();
    }

    /** Whether telling the caller to come back later is honest: not for a request no window can ever hold. */
    public static boolean waitingHelps(Rejection r) {
        return r.decision() != GatewayDecision.NOT_ADMISSIBLE
                && r.decision() != GatewayDecision.BUDGET_EXHAUSTED
                && r.retryAfterMillis() > 0;
    }

    static long ceilSeconds(long millis) {
        return millis <= 0 ? 0 : (millis + 999) / 1000;
    }

    private static String lead(GatewayDecision decision) {
        switch (decision) {
            case QUEUE_DEADLINE_EXCEEDED:
                return "Rate limited by Sluice: queue deadline exceeded";
            case QUEUE_FULL:
                return "Rate limited by Sluice: queue full";
            case PAUSED:
                return "Paused by Sluice";
            case ADMITTED_THEN_PROVIDER_REJECTED:
                return "Rejected by the provider after Sluice admitted the request";
            case RETRY_BUDGET_EXHAUSTED:
                return "Rejected by the provider and Sluice's retry budget is spent";
            case NOT_ADMISSIBLE:
                return "Request too large for Sluice's limits";
            case BUDGET_EXHAUSTED:
                return "Budget exhausted in Sluice";
            default:
                return "Rate limit reached in Sluice";
        }
    }

    private static String model(Rejection r, RequestFacts facts) {
        return firstNonNull(r.model(), facts == null ? null : facts.model());
    }

    private static String firstNonNull(String a, String b) {
        return a != null ? a : b;
    }

    private static void stringField(JsonGenerator json, String name, String value) throws IOException {
        if (value != null) {
            json.writeStringField(name, value);
        }
    }
}
