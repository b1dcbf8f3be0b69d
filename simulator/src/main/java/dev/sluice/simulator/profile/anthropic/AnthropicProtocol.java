package dev.sluice.simulator.profile.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
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
import dev.sluice.simulator.protocol.Statuses;
import dev.sluice.simulator.protocol.TokenEstimator;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Anthropic ({@code POST /v1/messages}): requests, input tokens (uncached + cache creation, not
 * cache reads) and output tokens (reserved from max_tokens at admission, the unused part given
 * back when the response ends) in continuously refilling buckets; {@code
 * anthropic-ratelimit-*} headers on every response with RFC 3339 resets and token counts rounded
 * to the thousand; 429 {@code rate_limit_error} with {@code retry-after}; 529 {@code
 * overloaded_error}; SSE from {@code message_start} to {@code message_stop}.
 */
public final class AnthropicProtocol implements ProviderProtocol {
    private static final String OPERATION = "messages";
    private static final String ORGANIZATION_ID = "a1b2c3d4-0000-4000-8000-5100ce5e0001";

    private final ProtocolSettings settings;
    private final PromptCache cache;

    public AnthropicProtocol(ProtocolSettings settings) {
        this.settings = settings;
        this.cache = new PromptCache(settings.clock());
    }

    @Override
    public String sdkBasePath() {
        return "";
    }

    @Override
    public String apiKey(ProviderRequest request) {
        String key = request.header("x-api-key");
        if (key == null) {
            key = request.bearerToken();
        }
        return key == null ? "" : key;
    }

    @Override
    public Parsed parse(ProviderRequest request) {
        if (!request.method().equals("POST") || !request.path().equals("/v1/messages")) {
            return Parsed.failed(AnthropicErrors.reply(404, "not_found_error", "Not found: " + request.path()));
        }
        JsonNode body = Json.parse(request.body());
        if (body == null || !body.isObject()) {
            return Parsed.failed(AnthropicErrors.reply(400, "invalid_request_error", "Request body is not valid JSON"));
        }
        Integer max = Json.optInt(body, "max_tokens");
        if (max == null) {
            return Parsed.failed(AnthropicErrors.reply(400, "invalid_request_error", "max_tokens: Field required"));
        }
        String model = Json.optText(body, "model", "claude-sonnet-4-5");
        boolean stream = body.path("stream").asBoolean(false);
        List<JsonNode> blocks = blocks(body);
        long totalChars = 0;
        long prefixChars = 0;
        StringBuilder prefix = new StringBuilder();
        int lastMarked = -1;
        for (int i = 0; i < blocks.size(); i++) {
            if (blocks.get(i).has("cache_control")) {
                lastMarked = i;
            }
        }
        for (int i = 0; i < blocks.size(); i++) {
            long chars = TokenEstimator.textChars(wrap(blocks.get(i)));
            totalChars += chars;
            if (i <= lastMarked) {
                prefixChars += chars;
                prefix.append(Json.text(blocks.get(i)));
            }
        }
        int total = Math.max(1, TokenEstimator.tokensForChars(totalChars));
        int prefixTokens = TokenEstimator.tokensForChars(prefixChars);
        int creation = 0;
        int read = 0;
        String entry = null;
        if (lastMarked >= 0 && prefixTokens >= PromptCache.MIN_CACHEABLE_TOKENS) {
            entry = PromptCache.entry(apiKey(request), prefix.toString());
            if (cache.isWarm(entry)) {
                read = prefixTokens;
            } else {
                creation = prefixTokens;
            }
        }
        int uncached = Math.max(0, total - creation - read);
        return Parsed.of(new ModelCall(
                OPERATION, model, stream, false, max, uncached, creation, read, settings.outputTokens(max), entry));
    }

    // System blocks, then every message's content blocks, in prompt order.
    private static List<JsonNode> blocks(JsonNode body) {
        List<JsonNode> out = new ArrayList<>();
        addContent(out, body.get("system"));
        for (JsonNode message : body.path("messages")) {
            addContent(out, message.get("content"));
        }
        return out;
    }

    private static void addContent(List<JsonNode> out, JsonNode content) {
        if (content == null) {
            return;
        }
        if (content.isArray()) {
            content.forEach(out::add);
        } else if (content.isTextual()) {
            ObjectNode block = Json.object();
            block.put("type", "text");
            block.put("text", content.asText());
            out.add(block);
        }
    }

    private static JsonNode wrap(JsonNode block) {
        ObjectNode node = Json.object();
        node.set("content", block);
        return node;
    }

    @Override
    public void admitted(ModelCall call) {
        if (call.detail() != null) {
            cache.touch(call.detail());
        }
    }

    @Override
    public void reset() {
        cache.clear();
    }

    @Override
    public List<Limit> defaultLimits() {
        // Tier 1 figures.
        return List.of(
                Limit.perMinute(Dimension.REQUESTS, 50),
                Limit.perMinute(Dimension.INPUT_TOKENS, 30_000),
                Limit.perMinute(Dimension.OUTPUT_TOKENS, 8_000));
    }

    @Override
    public List<Limit> adapt(List<Limit> limits) {
        // Anthropic's token limits are input and output; a plain tokens limit means input.
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
    public String organizationHeader() {
        return "anthropic-organization-id";
    }

    /** Anthropic names organizations by UUID. */
    @Override
    public String organizationOf(String apiKey) {
        return java.util
                .UUID
                .nameUUIDFromBytes(apiKey.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .toString();
    }

    @Override
    public Map<Dimension, Long> demand(ModelCall call) {
        long input = (long) call.inputTokens() + call.cacheCreationTokens();
        Map<Dimension, Long> demand = new EnumMap<>(Dimension.class);
        demand.put(Dimension.REQUESTS, 1L);
        demand.put(Dimension.INPUT_TOKENS, input);
        demand.put(Dimension.OUTPUT_TOKENS, (long) call.maxOutputTokens());
        demand.put(Dimension.TOKENS, input + call.maxOutputTokens());
        demand.put(Dimension.CONCURRENCY, 1L);
        return demand;
    }

    @Override
    public Map<Dimension, Long> settlement(ModelCall call) {
        long unused = Math.max(0, call.maxOutputTokens() - call.outputTokens());
        return Map.of(Dimension.OUTPUT_TOKENS, unused, Dimension.TOKENS, unused);
    }

    @Override
    public Reply success(ModelCall call, List<LimitStatus> statuses, Pacing pacing, Ending ending) {
        Reply reply = call.stream()
                ? MessagesFormat.stream(call, pacing, ending)
                : MessagesFormat.whole(call, pacing, ending);
        return reply.headers(headers(statuses));
    }

    @Override
    public Reply rateLimited(ModelCall call, Admission admission, ScopeKeys keys) {
        Limit limit = admission.refusedBy().limit();
        String message;
        if (limit.dimension() == Dimension.CONCURRENCY) {
            message = "Number of concurrent connections has exceeded your rate limit. Please try again later"
                    + " or contact sales at https://www.anthropic.com/contact-sales to discuss your"
                    + " options for a rate limit increase.";
        } else {
            message = String.format(
                    Locale.US,
                    "This request would exceed the rate limit for your organization (%s) of %,d %s %s."
                            + " For details, refer to: https://docs.claude.com/en/api/rate-limits. You can"
                            + " see the response headers for current usage. Please reduce the prompt length"
                            + " or the maximum tokens requested, or try again later. You may also contact"
                            + " sales at https://www.anthropic.com/contact-sales to discuss your options for"
                            + " a rate limit increase.",
                    ORGANIZATION_ID,
                    limit.capacity(),
                    what(limit.dimension()),
                    per(limit));
        }
        Reply reply = AnthropicErrors.reply(429, "rate_limit_error", message);
        if (admission.retryAfter() != null) {
            reply.header("retry-after", Long.toString(Statuses.retryAfterSeconds(admission.retryAfter())));
        }
        return reply.headers(headers(admission.statuses()));
    }

    @Override
    public Reply overloaded(ModelCall call) {
        return AnthropicErrors.reply(529, "overloaded_error", "Overloaded").headers(ids());
    }

    @Override
    public Reply forced(FaultKind kind, ModelCall call, ScopeKeys keys) {
        Reply reply;
        switch (kind) {
            case RATE_LIMITED:
                reply = AnthropicErrors.reply(
                                429,
                                "rate_limit_error",
                                "This request would exceed the rate limit for your organization (" + ORGANIZATION_ID
                                        + ") of 1 requests per minute. Please try again later.")
                        .header("retry-after", "1");
                break;
            case INSUFFICIENT_QUOTA:
                // A monthly spend cap: 429 like a rate limit, but no retry-after and a details code.
                ObjectNode details = Json.object();
                details.put("error_code", "enforced_spend_limit_reached");
                String regain = DateTimeFormatter.ISO_LOCAL_DATE.format(settings.clock()
                        .instant()
                        .atZone(java.time.ZoneOffset.UTC)
                        .plusMonths(1)
                        .withDayOfMonth(1));
                reply = AnthropicErrors.reply(
                        429,
                        "rate_limit_error",
                        "You have reached your specified API usage limits. You will regain access on " + regain
                                + " at 00:00 UTC.",
                        details);
                break;
            case BUDGET_EXCEEDED:
                reply = AnthropicErrors.reply(
                        402, "billing_error", "Your credit balance is too low to access the Anthropic API.");
                break;
            case NO_ENDPOINT_FOR_POLICY:
                reply = AnthropicErrors.reply(
                        409,
                        "invalid_request_error",
                        "No endpoint satisfies the data residency policy of this request.");
                break;
            case BAD_REQUEST:
                reply = AnthropicErrors.reply(
                        400, "invalid_request_error", "Invalid request (forced by the simulator).");
                break;
            case SERVER_ERROR:
                reply = AnthropicErrors.reply(500, "api_error", "Internal server error");
                break;
            default:
                throw new IllegalArgumentException("not an answer: " + kind);
        }
        return reply.headers(ids());
    }

    @Override
    public Map<String, String> malformedHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("anthropic-ratelimit-requests-remaining", "several");
        h.put("anthropic-ratelimit-requests-reset", "next tuesday");
        h.put("anthropic-ratelimit-input-tokens-remaining", "1,5k");
        h.put("anthropic-ratelimit-input-tokens-reset", "2026-13-45T99:99:99Z");
        h.put("anthropic-ratelimit-output-tokens-reset", "1700000000");
        h.put("retry-after", "soon");
        return h;
    }

    private Map<String, String> headers(List<LimitStatus> statuses) {
        Map<String, String> h = ids();
        put(h, "requests", Statuses.tightest(statuses, Dimension.REQUESTS), false);
        LimitStatus input = Statuses.tightest(statuses, Dimension.INPUT_TOKENS);
        LimitStatus output = Statuses.tightest(statuses, Dimension.OUTPUT_TOKENS);
        LimitStatus tokens = input;
        if (tokens == null || (output != null && output.remaining() < input.remaining())) {
            tokens = output;
        }
        put(h, "tokens", tokens, true);
        put(h, "input-tokens", input, true);
        put(h, "output-tokens", output, true);
        return h;
    }

    private void put(Map<String, String> h, String what, LimitStatus s, boolean thousands) {
        if (s == null) {
            return;
        }
        long remaining = thousands && settings.roundTokensRemaining()
                ? Math.round(s.remaining() / 1000.0) * 1000
                : s.remaining();
        h.put("anthropic-ratelimit-" + what + "-limit", Long.toString(s.limit().capacity()));
        h.put("anthropic-ratelimit-" + what + "-remaining", Long.toString(remaining));
        h.put("anthropic-ratelimit-" + what + "-reset", rfc3339(s.resetAt()));
    }

    /** "Fully replenished at", to the second, rounded up so it is never early. */
    static String rfc3339(Instant at) {
        Instant up = at.getNano() == 0 ? at : at.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
        return DateTimeFormatter.ISO_INSTANT.format(up);
    }

    private static Map<String, String> ids() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("request-id", Ids.next("req_"));
        h.put("anthropic-organization-id", ORGANIZATION_ID);
        return h;
    }

    private static String what(Dimension d) {
        switch (d) {
            case REQUESTS:
                return "requests";
            case OUTPUT_TOKENS:
                return "output tokens";
            case TOKENS:
                return "tokens";
            case INPUT_TOKENS:
            default:
                return "input tokens";
        }
    }

    private static String per(Limit limit) {
        String per = Statuses.perWindow(limit);
        return per.equals("per min") ? "per minute" : per;
    }
}
