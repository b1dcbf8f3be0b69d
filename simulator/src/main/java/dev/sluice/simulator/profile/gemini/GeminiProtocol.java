package dev.sluice.simulator.profile.gemini;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.limit.Admission;
import dev.sluice.simulator.limit.LimitStatus;
import dev.sluice.simulator.limit.ScopeKeys;
import dev.sluice.simulator.protocol.Ending;
import dev.sluice.simulator.protocol.Ids;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.ModelCall;
import dev.sluice.simulator.protocol.Pacing;
import dev.sluice.simulator.protocol.Parsed;
import dev.sluice.simulator.protocol.ProtocolSettings;
import dev.sluice.simulator.protocol.ProviderProtocol;
import dev.sluice.simulator.protocol.ProviderRequest;
import dev.sluice.simulator.protocol.Reply;
import dev.sluice.simulator.protocol.TextGenerator;
import dev.sluice.simulator.protocol.TokenEstimator;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Gemini API ({@code /v1beta/models/{model}:generateContent} and {@code
 * :streamGenerateContent?alt=sse}): requests and input tokens per minute; no rate-limit headers at
 * all; 429 {@code RESOURCE_EXHAUSTED} whose details carry a {@code QuotaFailure} (quotaId) and a
 * {@code RetryInfo} protobuf duration; 503 {@code UNAVAILABLE} when overloaded; {@code
 * usageMetadata} in every stream chunk, the last one authoritative.
 */
public final class GeminiProtocol implements ProviderProtocol {
    private static final Pattern ROUTE =
            Pattern.compile("^/(v1beta|v1|v1alpha)/models/([^/:]+):(generateContent|streamGenerateContent)$");
    private static final ZoneId PACIFIC = ZoneId.of("America/Los_Angeles");

    private final ProtocolSettings settings;

    public GeminiProtocol(ProtocolSettings settings) {
        this.settings = settings;
    }

    @Override
    public String sdkBasePath() {
        return "";
    }

    @Override
    public String apiKey(ProviderRequest request) {
        String key = request.header("x-goog-api-key");
        if (key == null) {
            key = request.query("key");
        }
        if (key == null) {
            key = request.bearerToken();
        }
        return key == null ? "" : key;
    }

    @Override
    public Parsed parse(ProviderRequest request) {
        Matcher m = ROUTE.matcher(request.path());
        if (!request.method().equals("POST") || !m.matches()) {
            return Parsed.failed(error(404, "NOT_FOUND", "Requested entity was not found."));
        }
        JsonNode body = Json.parse(request.body());
        if (body == null || !body.isObject()) {
            return Parsed.failed(error(400, "INVALID_ARGUMENT", "Invalid JSON payload received."));
        }
        boolean stream = m.group(3).equals("streamGenerateContent");
        // Without alt=sse Gemini streams one JSON array; the detail remembers which framing to use.
        String framing = stream && !"sse".equals(request.query("alt")) ? "json-array" : null;
        Integer max = Json.optInt(body.path("generationConfig"), "maxOutputTokens");
        long chars =
                TokenEstimator.textChars(body.get("contents") == null ? null : wrap("contents", body.get("contents")))
                        + TokenEstimator.textChars(wrap("systemInstruction", body.get("systemInstruction")));
        int input = Math.max(1, TokenEstimator.tokensForChars(chars));
        return Parsed.of(new ModelCall(
                m.group(3), m.group(2), stream, stream, max, input, 0, 0, settings.outputTokens(max), framing));
    }

    private static JsonNode wrap(String field, JsonNode value) {
        ObjectNode node = Json.object();
        if (value != null) {
            // systemInstruction holds parts; name it so its text is counted.
            node.set(field.equals("systemInstruction") ? "contents" : field, value);
        }
        return node;
    }

    @Override
    public List<Limit> defaultLimits() {
        // Free-tier figures for a flash model.
        return List.of(Limit.perMinute(Dimension.REQUESTS, 15), Limit.perMinute(Dimension.INPUT_TOKENS, 1_000_000));
    }

    @Override
    public List<Limit> adapt(List<Limit> limits) {
        List<Limit> out = new ArrayList<>();
        for (Limit l : limits) {
            out.add(
                    l.dimension() == Dimension.TOKENS
                            ? new Limit(
                                    Dimension.INPUT_TOKENS,
                                    l.capacity(),
                                    l.window(),
                                    l.algorithm(),
                                    l.scope(),
                                    l.burst(),
                                    l.name())
                            : l);
        }
        return out;
    }

    @Override
    public Map<Dimension, Long> demand(ModelCall call) {
        Map<Dimension, Long> demand = new EnumMap<>(Dimension.class);
        demand.put(Dimension.REQUESTS, 1L);
        demand.put(Dimension.INPUT_TOKENS, (long) call.totalInputTokens());
        demand.put(Dimension.TOKENS, (long) call.totalInputTokens());
        demand.put(Dimension.OUTPUT_TOKENS, (long) call.outputTokens());
        demand.put(Dimension.CONCURRENCY, 1L);
        return demand;
    }

    @Override
    public Reply success(ModelCall call, List<LimitStatus> statuses, Pacing pacing, Ending ending) {
        String id = Ids.next("");
        if (!call.stream()) {
            ObjectNode body = chunk(call, id, TextGenerator.text(call.outputTokens()), call.outputTokens(), true);
            return Reply.whole(Json.bytes(body), pacing.total(call.outputTokens()), ending);
        }
        boolean sse = call.detail() == null;
        Reply reply =
                sse ? Reply.eventStream() : new Reply(200).header("Content-Type", "application/json; charset=UTF-8");
        List<String> tokens = TextGenerator.tokens(call.outputTokens());
        int cut = ending == Ending.COMPLETE ? tokens.size() : tokens.size() / 2;
        for (int i = 0; i < cut; i++) {
            boolean last = ending == Ending.COMPLETE && i == tokens.size() - 1;
            ObjectNode chunk = chunk(call, id, tokens.get(i), i + 1, last);
            reply.frame(pacing.tokenAt(i + 1), frame(chunk, sse, i == 0, false));
        }
        Duration end = pacing.tokenAt(cut);
        if (ending == Ending.TRUNCATED) {
            return reply.truncated();
        }
        if (ending == Ending.MID_STREAM_ERROR) {
            return reply.frame(
                    end,
                    frame(
                            errorBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
                            sse,
                            cut == 0,
                            true));
        }
        if (tokens.isEmpty()) {
            reply.frame(end, frame(chunk(call, id, "", 0, true), sse, true, false));
        }
        if (!sse) {
            reply.frame(end, "]");
        }
        return reply;
    }

    private static String frame(ObjectNode chunk, boolean sse, boolean first, boolean last) {
        if (sse) {
            return "data: " + Json.text(chunk) + "\r\n\r\n";
        }
        return (first ? "[" : ",\r\n") + Json.text(chunk) + (last ? "]" : "");
    }

    private static ObjectNode chunk(ModelCall call, String id, String text, int outputSoFar, boolean last) {
        ObjectNode root = Json.object();
        ObjectNode candidate = root.putArray("candidates").addObject();
        ObjectNode content = candidate.putObject("content");
        content.putArray("parts").addObject().put("text", text);
        content.put("role", "model");
        if (last) {
            candidate.put("finishReason", call.hitMaxTokens() ? "MAX_TOKENS" : "STOP");
        }
        candidate.put("index", 0);
        ObjectNode usage = root.putObject("usageMetadata");
        usage.put("promptTokenCount", call.totalInputTokens());
        usage.put("candidatesTokenCount", outputSoFar);
        usage.put("totalTokenCount", call.totalInputTokens() + outputSoFar);
        ArrayNode details = usage.putArray("promptTokensDetails");
        ObjectNode detail = details.addObject();
        detail.put("modality", "TEXT");
        detail.put("tokenCount", call.totalInputTokens());
        root.put("modelVersion", call.model());
        root.put("responseId", id);
        return root;
    }

    @Override
    public Reply rateLimited(ModelCall call, Admission admission, ScopeKeys keys) {
        Limit limit = admission.refusedBy().limit();
        Duration wait = admission.retryAfter();
        boolean tokens = limit.dimension() != Dimension.REQUESTS;
        String metric = tokens
                ? "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count"
                : "generativelanguage.googleapis.com/generate_content_free_tier_requests";
        String quotaId = tokens
                ? "GenerateContentInputTokensPerModelPerMinute-FreeTier"
                : "GenerateRequestsPerMinutePerProjectPerModel-FreeTier";
        return quotaExhausted(call.model(), metric, quotaId, limit.capacity(), wait);
    }

    private Reply quotaExhausted(String model, String metric, String quotaId, long value, Duration wait) {
        StringBuilder message = new StringBuilder(
                "You exceeded your current quota, please check your plan and billing details. For more"
                        + " information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
                        + " To monitor your current usage, head to: https://ai.dev/usage?tab=rate-limit. \n"
                        + "* Quota exceeded for metric: " + metric + ", limit: " + value + ", model: " + model);
        if (wait != null) {
            message.append("\nPlease retry in ").append(protobufDuration(wait)).append('.');
        }
        ObjectNode root = errorBody(429, "RESOURCE_EXHAUSTED", message.toString());
        ArrayNode details = ((ObjectNode) root.get("error")).putArray("details");
        ObjectNode failure = details.addObject();
        failure.put("@type", "type.googleapis.com/google.rpc.QuotaFailure");
        ObjectNode violation = failure.putArray("violations").addObject();
        violation.put("quotaMetric", metric);
        violation.put("quotaId", quotaId);
        ObjectNode dims = violation.putObject("quotaDimensions");
        dims.put("location", "global");
        dims.put("model", model);
        violation.put("quotaValue", Long.toString(value));
        ObjectNode help = details.addObject();
        help.put("@type", "type.googleapis.com/google.rpc.Help");
        ObjectNode link = help.putArray("links").addObject();
        link.put("description", "Learn more about Gemini API quotas");
        link.put("url", "https://ai.google.dev/gemini-api/docs/rate-limits");
        if (wait != null) {
            ObjectNode retry = details.addObject();
            retry.put("@type", "type.googleapis.com/google.rpc.RetryInfo");
            retry.put("retryDelay", protobufDuration(wait));
        }
        return Reply.json(429, Json.bytes(root));
    }

    /** A protobuf JSON duration: seconds with up to 9 fractional digits, "29s", "27.4s". */
    static String protobufDuration(Duration d) {
        long millis = Math.max(1, (d.toNanos() + 999_999) / 1_000_000);
        return BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString() + "s";
    }

    @Override
    public Reply overloaded(ModelCall call) {
        return Reply.json(
                503, Json.bytes(errorBody(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")));
    }

    @Override
    public Reply forced(FaultKind kind, ModelCall call, ScopeKeys keys) {
        String model = call == null ? "gemini-2.0-flash" : call.model();
        switch (kind) {
            case RATE_LIMITED:
                return quotaExhausted(
                        model,
                        "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                        1,
                        Duration.ofSeconds(1));
            case INSUFFICIENT_QUOTA:
                // A per-day quota: clears at midnight Pacific, so waiting seconds never helps.
                Instant now = settings.clock().instant();
                Instant midnight = LocalDate.ofInstant(now, PACIFIC)
                        .plusDays(1)
                        .atStartOfDay(PACIFIC)
                        .toInstant();
                return quotaExhausted(
                        model,
                        "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                        200,
                        Duration.between(now, midnight));
            case BAD_REQUEST:
                return Reply.json(
                        400,
                        Json.bytes(errorBody(400, "INVALID_ARGUMENT", "Invalid request (forced by the simulator).")));
            case SERVER_ERROR:
                return Reply.json(
                        500,
                        Json.bytes(errorBody(
                                500,
                                "INTERNAL",
                                "An internal error has occurred. Please retry or report in"
                                        + " https://developers.generativeai.google/guide/troubleshooting")));
            case BUDGET_EXCEEDED:
                return Reply.json(
                        402,
                        Json.bytes(errorBody(402, "FAILED_PRECONDITION", "Daily spend cap reached for this project.")));
            case NO_ENDPOINT_FOR_POLICY:
                return Reply.json(
                        409,
                        Json.bytes(errorBody(
                                409, "ABORTED", "No endpoint satisfies the data residency policy of this request.")));
            default:
                throw new IllegalArgumentException("not an answer: " + kind);
        }
    }

    @Override
    public Map<String, String> malformedHeaders() {
        // Gemini sends no rate-limit headers; the fault adds garbage a parser must survive.
        return Map.of("retry-after", "in a while", "x-ratelimit-remaining-requests", "?");
    }

    private static ObjectNode errorBody(int code, String status, String message) {
        ObjectNode error = Json.object();
        error.put("code", code);
        error.put("message", message);
        error.put("status", status);
        ObjectNode root = Json.object();
        root.set("error", error);
        return root;
    }

    private static Reply error(int code, String status, String message) {
        return Reply.json(code, Json.bytes(errorBody(code, status, message)));
    }
}
