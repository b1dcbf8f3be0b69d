package dev.sluice.simulator.profile.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.Algorithm;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Durations;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Scope;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.limit.Admission;
import dev.sluice.simulator.limit.LimitStatus;
import dev.sluice.simulator.limit.ScopeKeys;
import dev.sluice.simulator.profile.openai.ChatCompletionsFormat;
import dev.sluice.simulator.profile.openai.OpenAiReplies;
import dev.sluice.simulator.profile.openai.ResponsesFormat;
import dev.sluice.simulator.protocol.Ending;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.ModelCall;
import dev.sluice.simulator.protocol.Pacing;
import dev.sluice.simulator.protocol.Parsed;
import dev.sluice.simulator.protocol.ProtocolSettings;
import dev.sluice.simulator.protocol.ProviderProtocol;
import dev.sluice.simulator.protocol.ProviderRequest;
import dev.sluice.simulator.protocol.Reply;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fixed-window gateway of providers.md, in front of OpenAI-shaped models ({@code
 * /v1/chat/completions}, {@code /v1/responses}): 600 calls per key and 1800 per organization per
 * minute in epoch-aligned fixed windows (both must pass), 8 requests in flight per key refused at
 * once; no rate-limit or retry-after headers at all; a 429 message ending with "Retry after
 * <ISO 8601 instant>" for the key bucket and naming no time for the organization; 402 {@code
 * budget_exceeded}, 409 {@code no_endpoint_for_policy}; bodies over 1 MB refused first (413).
 */
public final class GatewayProtocol implements ProviderProtocol {
    /** Request bodies larger than this are refused before anything else. */
    public static final long MAX_BODY_BYTES = 1024L * 1024;

    private final ProtocolSettings settings;

    public GatewayProtocol(ProtocolSettings settings) {
        this.settings = settings;
    }

    @Override
    public String sdkBasePath() {
        return "/v1";
    }

    @Override
    public String apiKey(ProviderRequest request) {
        String key = request.bearerToken();
        return key == null ? "" : key;
    }

    @Override
    public long maxBodyBytes() {
        return MAX_BODY_BYTES;
    }

    @Override
    public Reply bodyTooLarge(long size) {
        return error(
                413,
                "invalid_request_error",
                "request_too_large",
                "Request body of " + size + " bytes exceeds the 1 MB limit.");
    }

    @Override
    public Parsed parse(ProviderRequest request) {
        String path = request.path();
        boolean chat = path.equals("/v1/chat/completions");
        boolean responses = path.equals("/v1/responses");
        if (!request.method().equals("POST") || !(chat || responses)) {
            return Parsed.failed(error(404, "not_found", "not_found", "No route for " + path));
        }
        JsonNode body = Json.parse(request.body());
        if (body == null || !body.isObject()) {
            return Parsed.failed(
                    error(400, "invalid_request_error", "invalid_json", "Request body is not valid JSON."));
        }
        return Parsed.of(
                chat ? ChatCompletionsFormat.parse(body, settings, null) : ResponsesFormat.parse(body, settings, null));
    }

    @Override
    public Algorithm defaultAlgorithm() {
        return Algorithm.FIXED_WINDOW;
    }

    @Override
    public List<Limit> defaultLimits() {
        return List.of(
                Limit.perMinute(Dimension.REQUESTS, 600).scope(Scope.API_KEY).named("key_chat"),
                Limit.perMinute(Dimension.REQUESTS, 1800)
                        .scope(Scope.ORGANIZATION)
                        .named("org_chat"),
                Limit.concurrency(8).scope(Scope.API_KEY).named("key_concurrency"));
    }

    @Override
    public Map<Dimension, Long> demand(ModelCall call) {
        long max = call.maxOutputTokens() == null ? 0 : call.maxOutputTokens();
        Map<Dimension, Long> demand = new EnumMap<>(Dimension.class);
        demand.put(Dimension.REQUESTS, 1L);
        demand.put(Dimension.TOKENS, Math.max(max, call.totalInputTokens()));
        demand.put(Dimension.INPUT_TOKENS, (long) call.totalInputTokens());
        demand.put(Dimension.OUTPUT_TOKENS, (long) call.outputTokens());
        demand.put(Dimension.CONCURRENCY, 1L);
        return demand;
    }

    @Override
    public Reply success(ModelCall call, List<LimitStatus> statuses, Pacing pacing, Ending ending) {
        // No rate-limit headers at all: the body is the only clock a caller gets.
        return OpenAiReplies.success(call, settings, pacing, ending);
    }

    @Override
    public Reply rateLimited(ModelCall call, Admission admission, ScopeKeys keys) {
        Limit limit = admission.refusedBy().limit();
        String message;
        if (limit.dimension() == Dimension.CONCURRENCY) {
            message = "Rate limit exceeded for " + limit.name() + ": at most " + limit.capacity()
                    + " requests in flight per API key.";
        } else {
            message = "Rate limit exceeded for " + limit.name() + ": " + limit.capacity() + " "
                    + limit.dimension().name().toLowerCase(java.util.Locale.ROOT) + " per "
                    + Durations.compact(limit.window()) + " per "
                    + (limit.scope() == Scope.ORGANIZATION ? "organization" : "API key") + ".";
            // Only the key bucket names its window end; the organization one leaves backoff to you.
            boolean named = limit.scope() != Scope.ORGANIZATION && limit.scope() != Scope.GLOBAL;
            if (named && admission.retryAfter() != null) {
                java.time.Instant end = settings.clock().instant().plus(admission.retryAfter());
                if (end.getNano() % 1_000_000 != 0) {
                    end = end.truncatedTo(ChronoUnit.MILLIS).plusMillis(1);
                }
                message += " Retry after " + DateTimeFormatter.ISO_INSTANT.format(end);
            }
        }
        return error(429, "rate_limit_error", "rate_limit_exceeded", message);
    }

    @Override
    public Reply overloaded(ModelCall call) {
        return error(
                503,
                "overloaded_error",
                "server_is_overloaded",
                "The upstream model is overloaded. Please try again later.");
    }

    @Override
    public Reply forced(FaultKind kind, ModelCall call, ScopeKeys keys) {
        switch (kind) {
            case RATE_LIMITED:
                return error(
                        429,
                        "rate_limit_error",
                        "rate_limit_exceeded",
                        "Rate limit exceeded for org_chat (forced by the simulator).");
            case INSUFFICIENT_QUOTA:
            case BUDGET_EXCEEDED:
                return error(
                        402, "budget_exceeded", "budget_exceeded", "Daily spend cap reached for this organization.");
            case NO_ENDPOINT_FOR_POLICY:
                return error(
                        409,
                        "no_endpoint_for_policy",
                        "no_endpoint_for_policy",
                        "No endpoint satisfies the data residency policy of this request.");
            case BAD_REQUEST:
                return error(400, "invalid_request_error", "bad_request", "Invalid request (forced by the simulator).");
            case SERVER_ERROR:
                return error(500, "api_error", "internal_error", "Internal error.");
            default:
                throw new IllegalArgumentException("not an answer: " + kind);
        }
    }

    @Override
    public Map<String, String> malformedHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("retry-after", "later");
        h.put("x-ratelimit-remaining-requests", "???");
        return h;
    }

    private static Reply error(int status, String type, String code, String message) {
        ObjectNode error = Json.object();
        error.put("type", type);
        error.put("code", code);
        error.put("message", message);
        ObjectNode root = Json.object();
        root.set("error", error);
        return Reply.json(status, Json.bytes(root));
    }
}
