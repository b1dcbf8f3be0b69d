package dev.sluice.simulator.profile.bedrock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.Dimension;
import dev.sluice.simulator.Limit;
import dev.sluice.simulator.Scope;
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
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Amazon Bedrock Runtime: {@code POST /model/{modelId}/converse}, {@code /converse-stream},
 * {@code /invoke} and {@code /invoke-with-response-stream} (the Anthropic Messages body), signed
 * with SigV4 (accepted, not verified: the access key id of the credential names the account).
 * Quotas per account and model, requests and tokens per minute; a call takes its input plus its
 * maximum output from the token quota and gives back what it did not use when it ends. No
 * rate-limit headers; 429 {@code ThrottlingException} ("Too many requests" / "Too many tokens,
 * please wait before trying again.", no wait hint); 503 {@code ServiceUnavailableException} when
 * overloaded. Streams are AWS event streams: ConverseStream's {@code messageStart},
 * {@code contentBlockDelta}s, {@code contentBlockStop}, {@code messageStop} and {@code metadata}
 * (the usage); InvokeModelWithResponseStream's {@code chunk}s carrying the model's own events in
 * base64, the last with {@code amazon-bedrock-invocationMetrics}. InvokeModel answers carry
 * {@code x-amzn-bedrock-input-token-count} and {@code -output-token-count}.
 */
public final class BedrockProtocol implements ProviderProtocol {

    private static final Pattern ROUTE =
            Pattern.compile("^/model/([^/]+)/(converse|converse-stream|invoke|invoke-with-response-stream)$");
    private static final String EVENT_STREAM = "application/vnd.amazon.eventstream";
    private static final String ERROR_TYPE_SUFFIX = ":http://internal.amazon.com/coral/com.amazon.bedrock/";
    /** Bedrock pads every event's payload with {@code "p"} so lengths do not leak the text. */
    private static final String PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0";

    private final ProtocolSettings settings;

    public BedrockProtocol(ProtocolSettings settings) {
        this.settings = settings;
    }

    @Override
    public String sdkBasePath() {
        return "";
    }

    /** The access key id of the SigV4 credential ({@code Credential=AKIA.../date/region/bedrock/aws4_request}), else a Bearer API key. */
    @Override
    public String apiKey(ProviderRequest request) {
        String auth = request.header("Authorization");
        if (auth != null && auth.startsWith("AWS4-HMAC-SHA256")) {
            int at = auth.indexOf("Credential=");
            if (at >= 0) {
                int end = auth.indexOf('/', at);
                return end < 0 ? "" : auth.substring(at + "Credential=".length(), end);
            }
            return "";
        }
        String bearer = request.bearerToken();
        return bearer == null ? "" : bearer;
    }

    @Override
    public Parsed parse(ProviderRequest request) {
        Matcher m = ROUTE.matcher(request.path());
        if (!request.method().equals("POST") || !m.matches()) {
            return Parsed.failed(error(404, "UnknownOperationException", null));
        }
        String model = URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
        String operation = m.group(2);
        JsonNode body = Json.parse(request.body());
        if (body == null || !body.isObject()) {
            return Parsed.failed(error(
                    400, "ValidationException", "Malformed input request, please reformat your input and try again."));
        }
        boolean converse = operation.startsWith("converse");
        Integer max =
                converse ? Json.optInt(body.path("inferenceConfig"), "maxTokens") : Json.optInt(body, "max_tokens");
        if (!converse && max == null && model.contains("anthropic")) {
            return Parsed.failed(
                    error(
                            400,
                            "ValidationException",
                            "Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again."));
        }
        ObjectNode text = Json.object();
        text.set("messages", body.get("messages"));
        text.set("system", body.get("system"));
        int input = Math.max(1, TokenEstimator.estimate(text));
        boolean stream = operation.endsWith("stream");
        return Parsed.of(
                new ModelCall(operation, model, stream, stream, max, input, 0, 0, settings.outputTokens(max), null));
    }

    /** Per account and model, as Bedrock's on-demand quotas are (here for a Claude 3 Haiku class model). */
    @Override
    public List<Limit> defaultLimits() {
        return List.of(
                Limit.perMinute(Dimension.REQUESTS, 1_000).scope(Scope.API_KEY_AND_MODEL),
                Limit.perMinute(Dimension.TOKENS, 2_000_000).scope(Scope.API_KEY_AND_MODEL));
    }

    /** The maximum output Bedrock reserves: the request's, else the model's own. */
    private long reservedOutput(ModelCall call) {
        return call.maxOutputTokens() != null ? call.maxOutputTokens() : settings.modelMaxOutputTokens();
    }

    @Override
    public Map<Dimension, Long> demand(ModelCall call) {
        long input = call.totalInputTokens();
        Map<Dimension, Long> demand = new EnumMap<>(Dimension.class);
        demand.put(Dimension.REQUESTS, 1L);
        demand.put(Dimension.INPUT_TOKENS, input);
        demand.put(Dimension.OUTPUT_TOKENS, reservedOutput(call));
        demand.put(Dimension.TOKENS, input + reservedOutput(call));
        demand.put(Dimension.CONCURRENCY, 1L);
        return demand;
    }

    /** The unused part of the reserved output goes back when the answer ends. */
    @Override
    public Map<Dimension, Long> settlement(ModelCall call) {
        long unused = Math.max(0, reservedOutput(call) - call.outputTokens());
        return Map.of(Dimension.OUTPUT_TOKENS, unused, Dimension.TOKENS, unused);
    }

    @Override
    public Reply success(ModelCall call, List<LimitStatus> statuses, Pacing pacing, Ending ending) {
        switch (call.operation()) {
            case "converse":
                return Reply.whole(Json.bytes(converseAnswer(call)), pacing.total(call.outputTokens()), ending)
                        .header("x-amzn-RequestId", UUID.randomUUID().toString());
            case "invoke":
                return Reply.whole(Json.bytes(anthropicAnswer(call)), pacing.total(call.outputTokens()), ending)
                        .header("x-amzn-RequestId", UUID.randomUUID().toString())
                        .header("X-Amzn-Bedrock-Input-Token-Count", Integer.toString(call.totalInputTokens()))
                        .header("X-Amzn-Bedrock-Output-Token-Count", Integer.toString(call.outputTokens()))
                        .header(
                                "X-Amzn-Bedrock-Invocation-Latency",
                                Long.toString(pacing.total(call.outputTokens()).toMillis()));
            case "converse-stream":
                return converseStream(call, pacing, ending);
            default:
                return invokeStream(call, pacing, ending);
        }
    }

    private static String stopReason(ModelCall call) {
        return call.hitMaxTokens() ? "max_tokens" : "end_turn";
    }

    private static ObjectNode converseAnswer(ModelCall call) {
        ObjectNode root = Json.object();
        ObjectNode message = root.putObject("output").putObject("message");
        message.put("role", "assistant");
        message.putArray("content").addObject().put("text", TextGenerator.text(call.outputTokens()));
        root.put("stopReason", stopReason(call));
        root.set("usage", converseUsage(call));
        root.putObject("metrics").put("latencyMs", 100);
        return root;
    }

    private static ObjectNode converseUsage(ModelCall call) {
        ObjectNode usage = Json.object();
        usage.put("inputTokens", call.totalInputTokens());
        usage.put("outputTokens", call.outputTokens());
        usage.put("totalTokens", call.totalInputTokens() + call.outputTokens());
        return usage;
    }

    private static ObjectNode anthropicAnswer(ModelCall call) {
        ObjectNode root = Json.object();
        root.put("id", Ids.next("msg_bdrk_"));
        root.put("type", "message");
        root.put("role", "assistant");
        root.put("model", call.model());
        ObjectNode text = root.putArray("content").addObject();
        text.put("type", "text");
        text.put("text", TextGenerator.text(call.outputTokens()));
        root.put("stop_reason", stopReason(call));
        root.putNull("stop_sequence");
        ObjectNode usage = root.putObject("usage");
        usage.put("input_tokens", call.totalInputTokens());
        usage.put("output_tokens", call.outputTokens());
        return root;
    }

    private static Reply eventStream() {
        return new Reply(200)
                .header("Content-Type", EVENT_STREAM)
                .header("x-amzn-RequestId", UUID.randomUUID().toString());
    }

    private static String padded(ObjectNode payload) {
        payload.put("p", PADDING.substring(0, 1 + (payload.size() * 7) % PADDING.length()));
        return Json.text(payload);
    }

    private Reply converseStream(ModelCall call, Pacing pacing, Ending ending) {
        Reply reply = eventStream();
        Duration start = pacing.firstByte();
        ObjectNode messageStart = Json.object();
        messageStart.put("role", "assistant");
        reply.frame(start, EventStreamEncoder.event("messageStart", padded(messageStart)));
        List<String> tokens = TextGenerator.tokens(call.outputTokens());
        int cut = ending == Ending.COMPLETE ? tokens.size() : tokens.size() / 2;
        for (int i = 0; i < cut; i++) {
            ObjectNode delta = Json.object();
            delta.put("contentBlockIndex", 0);
            delta.putObject("delta").put("text", tokens.get(i));
            reply.frame(pacing.tokenAt(i + 1), EventStreamEncoder.event("contentBlockDelta", padded(delta)));
        }
        Duration end = pacing.tokenAt(cut);
        if (ending == Ending.TRUNCATED) {
            return reply.truncated();
        }
        if (ending == Ending.MID_STREAM_ERROR) {
            return reply.frame(end, unavailableEvent());
        }
        ObjectNode blockStop = Json.object();
        blockStop.put("contentBlockIndex", 0);
        reply.frame(end, EventStreamEncoder.event("contentBlockStop", padded(blockStop)));
        ObjectNode messageStop = Json.object();
        messageStop.put("stopReason", stopReason(call));
        reply.frame(end, EventStreamEncoder.event("messageStop", padded(messageStop)));
        ObjectNode metadata = Json.object();
        metadata.set("usage", converseUsage(call));
        metadata.putObject("metrics").put("latencyMs", end.toMillis());
        return reply.frame(end, EventStreamEncoder.event("metadata", padded(metadata)));
    }

    private Reply invokeStream(ModelCall call, Pacing pacing, Ending ending) {
        Reply reply = eventStream();
        Duration start = pacing.firstByte();
        ObjectNode messageStart = type("message_start");
        ObjectNode message = messageStart.putObject("message");
        message.put("id", Ids.next("msg_bdrk_"));
        message.put("type", "message");
        message.put("role", "assistant");
        message.put("model", call.model());
        message.putArray("content");
        message.putNull("stop_reason");
        ObjectNode startUsage = message.putObject("usage");
        startUsage.put("input_tokens", call.totalInputTokens());
        startUsage.put("output_tokens", 1);
        reply.frame(start, chunk(messageStart));
        ObjectNode blockStart = type("content_block_start");
        blockStart.put("index", 0);
        ObjectNode block = blockStart.putObject("content_block");
        block.put("type", "text");
        block.put("text", "");
        reply.frame(start, chunk(blockStart));
        List<String> tokens = TextGenerator.tokens(call.outputTokens());
        int cut = ending == Ending.COMPLETE ? tokens.size() : tokens.size() / 2;
        for (int i = 0; i < cut; i++) {
            ObjectNode delta = type("content_block_delta");
            delta.put("index", 0);
            ObjectNode d = delta.putObject("delta");
            d.put("type", "text_delta");
            d.put("text", tokens.get(i));
            reply.frame(pacing.tokenAt(i + 1), chunk(delta));
        }
        Duration end = pacing.tokenAt(cut);
        if (ending == Ending.TRUNCATED) {
            return reply.truncated();
        }
        if (ending == Ending.MID_STREAM_ERROR) {
            return reply.frame(end, unavailableEvent());
        }
        ObjectNode blockStop = type("content_block_stop");
        blockStop.put("index", 0);
        reply.frame(end, chunk(blockStop));
        ObjectNode messageDelta = type("message_delta");
        messageDelta.putObject("delta").put("stop_reason", stopReason(call)).putNull("stop_sequence");
        messageDelta.putObject("usage").put("output_tokens", call.outputTokens());
        reply.frame(end, chunk(messageDelta));
        ObjectNode messageStop = type("message_stop");
        ObjectNode metrics = messageStop.putObject("amazon-bedrock-invocationMetrics");
        metrics.put("inputTokenCount", call.totalInputTokens());
        metrics.put("outputTokenCount", call.outputTokens());
        metrics.put("invocationLatency", end.toMillis());
        metrics.put("firstByteLatency", start.toMillis());
        return reply.frame(end, chunk(messageStop));
    }

    private static ObjectNode type(String type) {
        ObjectNode node = Json.object();
        node.put("type", type);
        return node;
    }

    /** A {@code chunk} event: the model's own event, base64 in {@code bytes}. */
    private static byte[] chunk(ObjectNode modelEvent) {
        ObjectNode payload = Json.object();
        payload.put("bytes", Base64.getEncoder().encodeToString(Json.bytes(modelEvent)));
        return EventStreamEncoder.event("chunk", padded(payload));
    }

    private static byte[] unavailableEvent() {
        ObjectNode body = Json.object();
        body.put("message", "Bedrock is unable to process your request.");
        return EventStreamEncoder.exception("serviceUnavailableException", Json.text(body));
    }

    @Override
    public Reply rateLimited(ModelCall call, Admission admission, ScopeKeys keys) {
        Dimension d = admission.refusedBy().limit().dimension();
        return throttled(
                d == Dimension.REQUESTS || d == Dimension.CONCURRENCY
                        ? "Too many requests, please wait before trying again."
                        : "Too many tokens, please wait before trying again.");
    }

    private static Reply throttled(String message) {
        return error(429, "ThrottlingException", message);
    }

    @Override
    public Reply overloaded(ModelCall call) {
        return error(503, "ServiceUnavailableException", "Bedrock is unable to process your request.");
    }

    @Override
    public Reply forced(FaultKind kind, ModelCall call, ScopeKeys keys) {
        switch (kind) {
            case RATE_LIMITED:
                return throttled("Too many requests, please wait before trying again.");
            case INSUFFICIENT_QUOTA:
            case BUDGET_EXCEEDED:
                return error(
                        400,
                        "ServiceQuotaExceededException",
                        "Your request exceeds the service quota for your account.");
            case BAD_REQUEST:
                return error(400, "ValidationException", "Invalid request (forced by the simulator).");
            case SERVER_ERROR:
                return error(500, "InternalServerException", "The server encountered an internal error.");
            case NO_ENDPOINT_FOR_POLICY:
                return error(
                        403,
                        "AccessDeniedException",
                        "You don't have access to the model with the specified model ID.");
            default:
                throw new IllegalArgumentException("not an answer: " + kind);
        }
    }

    @Override
    public Map<String, String> malformedHeaders() {
        // Bedrock sends no rate-limit headers; the fault adds garbage a parser must survive.
        return Map.of("retry-after", "soon", "x-amzn-bedrock-input-token-count", "many");
    }

    /** Bedrock's error answer: the type in {@code x-amzn-ErrorType}, the message in the body. */
    private static Reply error(int status, String type, String message) {
        ObjectNode body = Json.object();
        if (message != null) {
            body.put("message", message);
        }
        return Reply.json(status, Json.bytes(body))
                .header("x-amzn-ErrorType", type + ERROR_TYPE_SUFFIX)
                .header("x-amzn-RequestId", UUID.randomUUID().toString());
    }
}
