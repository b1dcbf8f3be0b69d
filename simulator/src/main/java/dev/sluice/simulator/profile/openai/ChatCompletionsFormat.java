package dev.sluice.simulator.profile.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.protocol.Ending;
import dev.sluice.simulator.protocol.Ids;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.ModelCall;
import dev.sluice.simulator.protocol.Pacing;
import dev.sluice.simulator.protocol.ProtocolSettings;
import dev.sluice.simulator.protocol.Reply;
import dev.sluice.simulator.protocol.Sse;
import dev.sluice.simulator.protocol.TextGenerator;
import dev.sluice.simulator.protocol.TokenEstimator;
import java.time.Duration;
import java.util.List;

/**
 * The Chat Completions API ({@code POST /v1/chat/completions}) as OpenAI, Azure and OpenAI-style
 * gateways speak it: request reading, the {@code chat.completion} body, and the chunk stream
 * ending with {@code data: [DONE]}, usage sent only under {@code stream_options.include_usage}.
 */
public final class ChatCompletionsFormat {
    public static final String OPERATION = "chat.completions";

    private ChatCompletionsFormat() {}

    public static ModelCall parse(JsonNode body, ProtocolSettings settings, String modelOverride) {
        String model = modelOverride != null ? modelOverride : Json.optText(body, "model", "gpt-4o-mini");
        boolean stream = body.path("stream").asBoolean(false);
        boolean includeUsage =
                stream && body.path("stream_options").path("include_usage").asBoolean(false);
        Integer max = Json.optInt(body, "max_completion_tokens");
        if (max == null) {
            max = Json.optInt(body, "max_tokens");
        }
        int input = Math.max(1, TokenEstimator.estimate(body.get("messages")));
        return new ModelCall(
                OPERATION, model, stream, includeUsage, max, input, 0, 0, settings.outputTokens(max), null);
    }

    /** The non-streaming body. */
    public static ObjectNode body(ModelCall call, long created) {
        ObjectNode root = Json.object();
        root.put("id", Ids.next("chatcmpl-"));
        root.put("object", "chat.completion");
        root.put("created", created);
        root.put("model", call.model());
        ArrayNode choices = root.putArray("choices");
        ObjectNode choice = choices.addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        message.put("content", TextGenerator.text(call.outputTokens()));
        message.putNull("refusal");
        message.putArray("annotations");
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason(call));
        root.set("usage", usage(call));
        root.put("service_tier", "default");
        root.put("system_fingerprint", "fp_sluice_sim");
        return root;
    }

    public static ObjectNode usage(ModelCall call) {
        ObjectNode usage = Json.object();
        usage.put("prompt_tokens", call.totalInputTokens());
        usage.put("completion_tokens", call.outputTokens());
        usage.put("total_tokens", call.totalInputTokens() + call.outputTokens());
        ObjectNode prompt = usage.putObject("prompt_tokens_details");
        prompt.put("cached_tokens", call.cacheReadTokens());
        prompt.put("audio_tokens", 0);
        ObjectNode completion = usage.putObject("completion_tokens_details");
        completion.put("reasoning_tokens", 0);
        completion.put("audio_tokens", 0);
        completion.put("accepted_prediction_tokens", 0);
        completion.put("rejected_prediction_tokens", 0);
        return usage;
    }

    /** Writes the chunk stream into {@code reply}, paced, ending as asked. */
    public static Reply stream(
            Reply reply, ModelCall call, long created, Pacing pacing, Ending ending, ObjectNode midStreamError) {
        String id = Ids.next("chatcmpl-");
        ObjectNode first = Json.object();
        first.put("role", "assistant");
        first.put("content", "");
        first.putNull("refusal");
        reply.frame(pacing.firstByte(), Sse.data(chunk(id, created, call, first, null)));
        List<String> tokens = TextGenerator.tokens(call.outputTokens());
        int cut = ending == Ending.COMPLETE ? tokens.size() : tokens.size() / 2;
        for (int i = 0; i < cut; i++) {
            ObjectNode delta = Json.object();
            delta.put("content", tokens.get(i));
            reply.frame(pacing.tokenAt(i + 1), Sse.data(chunk(id, created, call, delta, null)));
        }
        Duration end = pacing.tokenAt(cut);
        if (ending == Ending.TRUNCATED) {
            return reply.truncated();
        }
        if (ending == Ending.MID_STREAM_ERROR) {
            return reply.frame(end, Sse.data(midStreamError));
        }
        reply.frame(end, Sse.data(chunk(id, created, call, Json.object(), finishReason(call))));
        if (call.includeUsage()) {
            ObjectNode last = base(id, created, call);
            last.putArray("choices");
            last.set("usage", usage(call));
            reply.frame(end, Sse.data(last));
        }
        return reply.frame(end, "data: [DONE]\n\n");
    }

    private static ObjectNode chunk(String id, long created, ModelCall call, ObjectNode delta, String finishReason) {
        ObjectNode chunk = base(id, created, call);
        ObjectNode choice = chunk.putArray("choices").addObject();
        choice.put("index", 0);
        choice.set("delta", delta);
        choice.putNull("logprobs");
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        if (call.includeUsage()) {
            chunk.putNull("usage");
        }
        return chunk;
    }

    private static ObjectNode base(String id, long created, ModelCall call) {
        ObjectNode chunk = Json.object();
        chunk.put("id", id);
        chunk.put("object", "chat.completion.chunk");
        chunk.put("created", created);
        chunk.put("model", call.model());
        chunk.put("service_tier", "default");
        chunk.put("system_fingerprint", "fp_sluice_sim");
        return chunk;
    }

    private static String finishReason(ModelCall call) {
        return call.hitMaxTokens() ? "length" : "stop";
    }
}
