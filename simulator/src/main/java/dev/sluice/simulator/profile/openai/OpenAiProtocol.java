package dev.sluice.simulator.profile.openai;

import com.fasterxml.jackson.databind.JsonNode;
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
import dev.sluice.simulator.protocol.Statuses;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * OpenAI ({@code api.openai.com}): Chat Completions and Responses; tokens charged at admission as
 * max(max_tokens, estimated prompt) and never trued up; refused requests still count; {@code
 * x-ratelimit-*} headers with Go-duration resets; 429 bodies naming limit, used and requested
 * with a "try again in" hint; {@code retry-after} and {@code retry-after-ms} on 429.
 */
public final class OpenAiProtocol implements ProviderProtocol {
    private final ProtocolSettings settings;

    public OpenAiProtocol(ProtocolSettings settings) {
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
    public Parsed parse(ProviderRequest request) {
        String path = request.path();
        boolean chat = path.equals("/v1/chat/completions");
        boolean responses = path.equals("/v1/responses");
        if (!request.method().equals("POST") || !(chat || responses)) {
            return Parsed.failed(OpenAiErrors.notFound(path));
        }
        JsonNode body = Json.parse(request.body());
        if (body == null || !body.isObject()) {
            return Parsed.failed(OpenAiErrors.invalidJson());
        }
        return Parsed.of(
                chat ? ChatCompletionsFormat.parse(body, settings, null) : ResponsesFormat.parse(body, settings, null));
    }

    @Override
    public List<Limit> defaultLimits() {
        // Tier-1-like figures for a small model.
        return List.of(Limit.perMinute(Dimension.REQUESTS, 500), Limit.perMinute(Dimension.TOKENS, 200_000));
    }

    @Override
    public Map<Dimension, Long> demand(ModelCall call) {
        long max = call.maxOutputTokens() == null ? 0 : call.maxOutputTokens();
        Map<Dimension, Long> demand = new EnumMap<>(Dimension.class);
        demand.put(Dimension.REQUESTS, 1L);
        demand.put(Dimension.TOKENS, Math.max(max, call.totalInputTokens()));
        demand.put(Dimension.INPUT_TOKENS, (long) call.totalInputTokens());
        demand.put(Dimension.OUTPUT_TOKENS, call.maxOutputTokens() == null ? call.outputTokens() : max);
        demand.put(Dimension.CONCURRENCY, 1L);
        return demand;
    }

    @Override
    public String organizationHeader() {
        return "openai-organization";
    }

    @Override
    public boolean countsRefusedRequests() {
        return true;
    }

    @Override
    public Reply success(ModelCall call, List<LimitStatus> statuses, Pacing pacing, Ending ending) {
        Reply reply = OpenAiReplies.success(call, settings, pacing, ending).headers(headers(statuses));
        return reply.header(PROCESSING_MS, Long.toString(untilHeaders(reply).toMillis()));
    }

    /**
     * How long OpenAI worked on the call before answering: the headers leave with the first bytes
     * of the body (a whole JSON body when it is ready, the first event of a stream), so the time
     * until then. A client reading it learns when the call was counted.
     */
    private static final String PROCESSING_MS = "openai-processing-ms";

    private static Duration untilHeaders(Reply reply) {
        return reply.frames().isEmpty() ? Duration.ZERO : reply.frames().get(0).at();
    }

    @Override
    public Reply rateLimited(ModelCall call, Admission admission, ScopeKeys keys) {
        LimitStatus refused = admission.refusedBy();
        Limit limit = refused.limit();
        String what = what(limit.dimension());
        String org = keys.organization();
        String message;
        if (admission.tooLarge()) {
            message = String.format(
                    "Request too large for %s in organization %s on %s %s (%s): Limit %d, Requested %d."
                            + " The input or output tokens must be reduced in order to run successfully."
                            + " Visit https://platform.openai.com/account/rate-limits to learn more.",
                    call.model(),
                    org,
                    what,
                    Statuses.perWindow(limit),
                    abbreviation(limit),
                    limit.effectiveBurst(),
                    admission.requested());
        } else if (admission.retryAfter() == null) {
            message = String.format(
                    "Rate limit reached for %s in organization %s on %s: Limit %d, Used %d, Requested %d."
                            + " Please try again later.",
                    call.model(), org, what, limit.capacity(), refused.used(), admission.requested());
        } else {
            message = String.format(
                    "Rate limit reached for %s in organization %s on %s %s (%s): Limit %d, Used %d,"
                            + " Requested %d. Please try again in %s."
                            + " Visit https://platform.openai.com/account/rate-limits to learn more.",
                    call.model(),
                    org,
                    what,
                    Statuses.perWindow(limit),
                    abbreviation(limit),
                    limit.capacity(),
                    refused.used(),
                    admission.requested(),
                    GoDuration.format(admission.retryAfter()));
        }
        String type = limit.dimension() == Dimension.REQUESTS ? "requests" : "tokens";
        Reply reply =
                OpenAiErrors.reply(429, message, type, "rate_limit_exceeded").headers(headers(admission.statuses()));
        if (admission.retryAfter() != null) {
            reply.header("retry-after", Long.toString(Statuses.retryAfterSeconds(admission.retryAfter())));
            reply.header("retry-after-ms", Long.toString(Statuses.retryAfterMillis(admission.retryAfter())));
        }
        return reply;
    }

    @Override
    public Reply overloaded(ModelCall call) {
        return OpenAiErrors.overloaded().headers(requestIdHeaders());
    }

    @Override
    public Reply accelerationLimited(ModelCall call, ScopeKeys keys) {
        return OpenAiErrors.reply(
                        429,
                        "A sudden increase in your request rate is impacting service reliability. Please reduce your"
                                + " request rate to its original level, maintain a consistent rate for at least 15"
                                + " minutes, and then gradually increase it.",
                        "requests",
                        "slow_down")
                .headers(requestIdHeaders());
    }

    @Override
    public Reply forced(FaultKind kind, ModelCall call, ScopeKeys keys) {
        return OpenAiReplies.forced(kind, call, keys).headers(requestIdHeaders());
    }

    @Override
    public Map<String, String> malformedHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-ratelimit-limit-requests", "NaN");
        h.put("x-ratelimit-remaining-requests", "lots");
        h.put("x-ratelimit-reset-requests", "soon");
        h.put("x-ratelimit-limit-tokens", "");
        h.put("x-ratelimit-remaining-tokens", "-3.5e");
        h.put("x-ratelimit-reset-tokens", "1x2y");
        h.put("retry-after", "whenever");
        h.put("retry-after-ms", "1e999");
        return h;
    }

    /** The x-ratelimit-* headers for the tightest requests and tokens limits. */
    Map<String, String> headers(List<LimitStatus> statuses) {
        Map<String, String> h = requestIdHeaders();
        put(h, "requests", Statuses.tightest(statuses, Dimension.REQUESTS));
        put(h, "tokens", Statuses.tightest(statuses, Dimension.TOKENS));
        return h;
    }

    private static void put(Map<String, String> h, String suffix, LimitStatus s) {
        if (s == null) {
            return;
        }
        h.put("x-ratelimit-limit-" + suffix, Long.toString(s.limit().capacity()));
        h.put("x-ratelimit-remaining-" + suffix, Long.toString(s.remaining()));
        h.put("x-ratelimit-reset-" + suffix, GoDuration.format(s.untilFull()));
    }

    private static Map<String, String> requestIdHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-request-id", Ids.next("req_"));
        h.put("openai-version", "2020-10-01");
        h.put(PROCESSING_MS, "1"); // refusals and errors are answered at once
        return h;
    }

    private static String what(Dimension dimension) {
        switch (dimension) {
            case REQUESTS:
                return "requests";
            case INPUT_TOKENS:
                return "input tokens";
            case OUTPUT_TOKENS:
                return "output tokens";
            case CONCURRENCY:
                return "concurrent requests";
            case TOKENS:
            default:
                return "tokens";
        }
    }

    private static String abbreviation(Limit limit) {
        String unit;
        switch (limit.dimension()) {
            case REQUESTS:
                unit = "R";
                break;
            case INPUT_TOKENS:
                unit = "IT";
                break;
            case OUTPUT_TOKENS:
                unit = "OT";
                break;
            default:
                unit = "T";
        }
        String per = Statuses.perWindow(limit);
        if (per.equals("per min")) {
            return unit + "PM";
        }
        if (per.equals("per day")) {
            return unit + "PD";
        }
        if (per.equals("per second")) {
            return unit + "PS";
        }
        return unit + "P" + per.substring(4).toUpperCase(Locale.ROOT);
    }
}
