package dev.sluice.simulator.profile.azure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.fault.FaultKind;
import dev.sluice.simulator.limit.Admission;
import dev.sluice.simulator.limit.LimitStatus;
import dev.sluice.simulator.limit.ScopeKeys;
import dev.sluice.simulator.profile.openai.ChatCompletionsFormat;
import dev.sluice.simulator.profile.openai.OpenAiErrors;
import dev.sluice.simulator.profile.openai.OpenAiReplies;
import dev.sluice.simulator.profile.openai.ResponsesFormat;
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
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Azure OpenAI ({@code /openai/deployments/{deployment}/...?api-version=}): tokens charged at
 * admission as estimated prompt + max_tokens (the model's maximum when absent); requests counted
 * over 10-second windows of RPM/6 and, when only TPM is configured, derived from it (6 RPM per
 * 1000 TPM); only {@code x-ratelimit-remaining-*} headers, {@code -1} on the Responses API; 429
 * with a string {@code code} and "Please retry after N seconds", {@code retry-after} and {@code
 * retry-after-ms}.
 */
public final class AzureOpenAiProtocol implements ProviderProtocol {
    private static final Pattern DEPLOYMENT =
            Pattern.compile("^/openai/deployments/([^/]+)/(chat/completions|responses)$");
    private static final Duration TEN_SECONDS = Duration.ofSeconds(10);
    private static final String DEFAULT_API_VERSION = "2024-10-21";

    private final ProtocolSettings settings;

    public AzureOpenAiProtocol(ProtocolSettings settings) {
        this.settings = settings;
    }

    @Override
    public String sdkBasePath() {
        return "";
    }

    @Override
    public String apiKey(ProviderRequest request) {
        String key = request.header("api-key");
        if (key == null) {
            key = request.bearerToken();
        }
        return key == null ? "" : key;
    }

    @Override
    public Parsed parse(ProviderRequest request) {
        String path = request.path();
        String deployment = null;
        String operation;
        Matcher m = DEPLOYMENT.matcher(path);
        if (m.matches()) {
            deployment = m.group(1);
            operation = m.group(2);
        } else if (path.equals("/openai/responses") || path.equals("/openai/v1/responses")) {
            operation = "responses";
        } else if (path.equals("/openai/v1/chat/completions")) {
            operation = "chat/completions";
        } else {
            return Parsed.failed(notFound());
        }
        if (!request.method().equals("POST")) {
            return Parsed.failed(notFound());
        }
        JsonNode body = Json.parse(request.body());
        if (body == null || !body.isObject()) {
            return Parsed.failed(OpenAiErrors.invalidJson());
        }
        String version = request.query("api-version");
        ModelCall call = operation.equals("responses")
                ? ResponsesFormat.parse(body, settings, deployment)
                : ChatCompletionsFormat.parse(body, settings, deployment);
        return Parsed.of(new ModelCall(
                call.operation(),
                call.model(),
                call.stream(),
                call.includeUsage(),
                call.maxOutputTokens(),
                call.inputTokens(),
                0,
                0,
                call.outputTokens(),
                version == null ? DEFAULT_API_VERSION : version));
    }

    private static Reply notFound() {
        ObjectNode error = Json.object();
        error.put("code", "404");
        error.put("message", "Resource not found");
        ObjectNode root = Json.object();
        root.set("error", error);
        return Reply.json(404, Json.bytes(root));
    }

    @Override
    public List<Limit> defaultLimits() {
        // A 30k TPM deployment; requests are derived from it by adapt().
        return List.of(Limit.perMinute(Dimension.TOKENS, 30_000));
    }

    @Override
    public List<Limit> adapt(List<Limit> limits) {
        List<Limit> out = new ArrayList<>();
        boolean hasRequests = false;
        Limit tokensPerMinute = null;
        for (Limit limit : limits) {
            if (limit.dimension() == Dimension.REQUESTS) {
                hasRequests = true;
                if (limit.window().equals(Duration.ofMinutes(1))) {
                    // Azure checks RPM over 10-second windows of RPM/6.
                    long per10s = Math.max(1, (limit.capacity() + 5) / 6);
                    limit = new Limit(
                            Dimension.REQUESTS,
                            per10s,
                            TEN_SECONDS,
                            limit.algorithm(),
                            limit.scope(),
                            Math.min(limit.burst(), per10s),
                            limit.name());
                }
            }
            if (limit.dimension() == Dimension.TOKENS && limit.window().equals(Duration.ofMinutes(1))) {
                tokensPerMinute = limit;
            }
            out.add(limit);
        }
        if (!hasRequests && tokensPerMinute != null) {
            long rpm = Math.max(6, tokensPerMinute.capacity() * 6 / 1000);
            out.add(new Limit(
                    Dimension.REQUESTS,
                    rpm / 6,
                    TEN_SECONDS,
                    tokensPerMinute.algorithm(),
                    tokensPerMinute.scope(),
                    0,
                    null));
        }
        return out;
    }

    @Override
    public Map<Dimension, Long> demand(ModelCall call) {
        long max = call.maxOutputTokens() == null ? settings.modelMaxOutputTokens() : call.maxOutputTokens();
        Map<Dimension, Long> demand = new EnumMap<>(Dimension.class);
        demand.put(Dimension.REQUESTS, 1L);
        demand.put(Dimension.TOKENS, call.totalInputTokens() + max);
        demand.put(Dimension.INPUT_TOKENS, (long) call.totalInputTokens());
        demand.put(Dimension.OUTPUT_TOKENS, max);
        demand.put(Dimension.CONCURRENCY, 1L);
        return demand;
    }

    @Override
    public Reply success(ModelCall call, List<LimitStatus> statuses, Pacing pacing, Ending ending) {
        return OpenAiReplies.success(call, settings, pacing, ending).headers(headers(call, statuses));
    }

    @Override
    public Reply rateLimited(ModelCall call, Admission admission, ScopeKeys keys) {
        Limit limit = admission.refusedBy().limit();
        String rate = limit.dimension() == Dimension.REQUESTS ? "call rate limit" : "token rate limit";
        String prefix = "Requests to the " + operationName(call) + " Operation under Azure OpenAI API version "
                + call.detail() + " have exceeded " + rate + " of your current AIServices S0 pricing"
                + " tier.";
        Reply reply;
        if (admission.retryAfter() == null) {
            String detail = admission.tooLarge()
                    ? " This request asks for " + admission.requested() + " tokens, more than the limit" + " of "
                            + limit.effectiveBurst() + "."
                    : " Please retry later.";
            reply = error(429, prefix + detail);
        } else {
            long seconds = Statuses.retryAfterSeconds(admission.retryAfter());
            reply = error(
                    429,
                    prefix + " Please retry after " + seconds + " second" + (seconds == 1 ? "" : "s")
                            + ". Please go here: https://aka.ms/oai/quotaincrease if you would like to further"
                            + " increase the default rate limit.");
            reply.header("retry-after", Long.toString(seconds));
            reply.header("retry-after-ms", Long.toString(Statuses.retryAfterMillis(admission.retryAfter())));
        }
        return reply.headers(headers(call, admission.statuses()));
    }

    @Override
    public Reply overloaded(ModelCall call) {
        return OpenAiErrors.overloaded().headers(ids());
    }

    @Override
    public Reply forced(FaultKind kind, ModelCall call, ScopeKeys keys) {
        String op = call == null ? "ChatCompletions_Create" : operationName(call);
        String version = call == null ? DEFAULT_API_VERSION : call.detail();
        switch (kind) {
            case RATE_LIMITED:
                return error(
                                429,
                                "Requests to the " + op + " Operation under Azure OpenAI API version "
                                        + version
                                        + " have exceeded call rate limit of your current AIServices S0 pricing"
                                        + " tier. Please retry after 1 second.")
                        .header("retry-after", "1")
                        .header("retry-after-ms", "1000")
                        .headers(ids());
            case INSUFFICIENT_QUOTA:
                // Azure's quota exhaustion reads like a rate limit with a day-long wait.
                return error(
                                429,
                                "Requests to the " + op + " Operation under Azure OpenAI API version "
                                        + version + " have exceeded the daily token quota of your current subscription."
                                        + " Please retry after 86400 seconds.")
                        .header("retry-after", "86400")
                        .headers(ids());
            default:
                return OpenAiReplies.forced(kind, call, keys).headers(ids());
        }
    }

    @Override
    public Map<String, String> malformedHeaders() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("x-ratelimit-remaining-requests", "plenty");
        h.put("x-ratelimit-remaining-tokens", "-x");
        h.put("retry-after", "eventually");
        h.put("retry-after-ms", "NaN");
        return h;
    }

    private Map<String, String> headers(ModelCall call, List<LimitStatus> statuses) {
        Map<String, String> h = ids();
        // The Responses API has been seen answering -1 (unknown) for both.
        boolean unknown = ResponsesFormat.OPERATION.equals(call.operation());
        LimitStatus requests = Statuses.tightest(statuses, Dimension.REQUESTS);
        LimitStatus tokens = Statuses.tightest(statuses, Dimension.TOKENS);
        if (requests != null) {
            h.put("x-ratelimit-remaining-requests", unknown ? "-1" : Long.toString(requests.remaining()));
        }
        if (tokens != null) {
            h.put("x-ratelimit-remaining-tokens", unknown ? "-1" : Long.toString(tokens.remaining()));
        }
        return h;
    }

    private static Map<String, String> ids() {
        Map<String, String> h = new LinkedHashMap<>();
        String id = Ids.next("");
        h.put("x-request-id", id);
        h.put("apim-request-id", id);
        h.put("x-ms-region", "Sweden Central");
        return h;
    }

    private static Reply error(int status, String message) {
        ObjectNode error = Json.object();
        error.put("code", Integer.toString(status));
        error.put("message", message);
        ObjectNode root = Json.object();
        root.set("error", error);
        return Reply.json(status, Json.bytes(root));
    }

    private static String operationName(ModelCall call) {
        return ResponsesFormat.OPERATION.equals(call.operation()) ? "Responses_Create" : "ChatCompletions_Create";
    }
}
