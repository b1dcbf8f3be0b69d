package dev.sluice.simulator.profile.openai;

import com.fasterxml.jackson.databind.JsonNode;
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
 * The Responses API ({@code POST /v1/responses}): the {@code response} object with {@code
 * usage.input_tokens/output_tokens}, and the typed event stream from {@code response.created} to
 * {@code response.completed} (or {@code response.failed} mid-stream).
 */
public final class ResponsesFormat {
    public static final String OPERATION = "responses";

    private ResponsesFormat() {}

    public static ModelCall parse(JsonNode body, ProtocolSettings settings, String modelOverride) {
        String model = modelOverride != null ? modelOverride : Json.optText(body, "model", "gpt-4o-mini");
        boolean stream = body.path("stream").asBoolean(false);
        Integer max = Json.optInt(body, "max_output_tokens");
        long chars = TokenEstimator.textChars(wrap("input", body.get("input")))
                + TokenEstimator.textChars(wrap("instructions", body.get("instructions")));
        int input = Math.max(1, TokenEstimator.tokensForChars(chars));
        return new ModelCall(OPERATION, model, stream, false, max, input, 0, 0, settings.outputTokens(max), null);
    }

    private static JsonNode wrap(String field, JsonNode value) {
        ObjectNode node = Json.object();
        if (value != null) {
            node.set(field, value);
        }
        return node;
    }

    /** The complete response object. */
    public static ObjectNode body(ModelCall call, long created) {
        return response(Ids.next("resp_"), Ids.next("msg_"), call, created, "completed");
    }

    /** Writes the event stream into {@code reply}, paced, ending as asked. */
    public static Reply stream(
            Reply reply, ModelCall call, long created, Pacing pacing, Ending ending, ObjectNode error) {
        String id = Ids.next("resp_");
        String itemId = Ids.next("msg_");
        int[] seq = {0};
        Duration start = pacing.firstByte();
        ObjectNode inProgress = response(id, itemId, call, created, "in_progress");
        inProgress.putArray("output");
        inProgress.putNull("usage");
        reply.frame(start, event("response.created", seq, e -> e.set("response", inProgress)));
        reply.frame(start, event("response.in_progress", seq, e -> e.set("response", inProgress)));
        ObjectNode emptyItem = item(itemId, "in_progress", null);
        reply.frame(start, event("response.output_item.added", seq, e -> {
            e.put("output_index", 0);
            e.set("item", emptyItem);
        }));
        reply.frame(start, event("response.content_part.added", seq, e -> {
            e.put("item_id", itemId);
            e.put("output_index", 0);
            e.put("content_index", 0);
            e.set("part", part(""));
        }));
        List<String> tokens = TextGenerator.tokens(call.outputTokens());
        int cut = ending == Ending.COMPLETE ? tokens.size() : tokens.size() / 2;
        for (int i = 0; i < cut; i++) {
            String delta = tokens.get(i);
            reply.frame(pacing.tokenAt(i + 1), event("response.output_text.delta", seq, e -> {
                e.put("item_id", itemId);
                e.put("output_index", 0);
                e.put("content_index", 0);
                e.put("delta", delta);
                e.putArray("logprobs");
            }));
        }
        Duration end = pacing.tokenAt(cut);
        if (ending == Ending.TRUNCATED) {
            return reply.truncated();
        }
        if (ending == Ending.MID_STREAM_ERROR) {
            ObjectNode failed = response(id, itemId, call, created, "failed");
            failed.set("error", error);
            failed.putNull("usage");
            return reply.frame(end, event("response.failed", seq, e -> e.set("response", failed)));
        }
        String text = TextGenerator.text(call.outputTokens());
        reply.frame(end, event("response.output_text.done", seq, e -> {
            e.put("item_id", itemId);
            e.put("output_index", 0);
            e.put("content_index", 0);
            e.put("text", text);
            e.putArray("logprobs");
        }));
        reply.frame(end, event("response.content_part.done", seq, e -> {
            e.put("item_id", itemId);
            e.put("output_index", 0);
            e.put("content_index", 0);
            e.set("part", part(text));
        }));
        reply.frame(end, event("response.output_item.done", seq, e -> {
            e.put("output_index", 0);
            e.set("item", item(itemId, "completed", text));
        }));
        ObjectNode done = response(id, itemId, call, created, "completed");
        return reply.frame(end, event("response.completed", seq, e -> e.set("response", done)));
    }

    private static String event(String type, int[] seq, java.util.function.Consumer<ObjectNode> fill) {
        ObjectNode e = Json.object();
        e.put("type", type);
        e.put("sequence_number", seq[0]++);
        fill.accept(e);
        return Sse.event(type, e);
    }

    private static ObjectNode response(String id, String itemId, ModelCall call, long created, String status) {
        boolean incomplete = "completed".equals(status) && call.hitMaxTokens();
        ObjectNode r = Json.object();
        r.put("id", id);
        r.put("object", "response");
        r.put("created_at", created);
        r.put("status", incomplete ? "incomplete" : status);
        r.put("background", false);
        r.putNull("error");
        if (incomplete) {
            r.putObject("incomplete_details").put("reason", "max_output_tokens");
        } else {
            r.putNull("incomplete_details");
        }
        r.putNull("instructions");
        if (call.maxOutputTokens() == null) {
            r.putNull("max_output_tokens");
        } else {
            r.put("max_output_tokens", call.maxOutputTokens());
        }
        r.put("model", call.model());
        r.putArray("output").add(item(itemId, "completed", TextGenerator.text(call.outputTokens())));
        r.put("parallel_tool_calls", true);
        r.putNull("previous_response_id");
        ObjectNode reasoning = r.putObject("reasoning");
        reasoning.putNull("effort");
        reasoning.putNull("summary");
        r.put("service_tier", "default");
        r.put("store", true);
        r.put("temperature", 1.0);
        r.putObject("text").putObject("format").put("type", "text");
        r.put("tool_choice", "auto");
        r.putArray("tools");
        r.put("top_p", 1.0);
        r.put("truncation", "disabled");
        r.set("usage", usage(call));
        r.putNull("user");
        r.putObject("metadata");
        return r;
    }

    public static ObjectNode usage(ModelCall call) {
        ObjectNode usage = Json.object();
        usage.put("input_tokens", call.totalInputTokens());
        usage.putObject("input_tokens_details").put("cached_tokens", call.cacheReadTokens());
        usage.put("output_tokens", call.outputTokens());
        usage.putObject("output_tokens_details").put("reasoning_tokens", 0);
        usage.put("total_tokens", call.totalInputTokens() + call.outputTokens());
        return usage;
    }

    private static ObjectNode item(String itemId, String status, String text) {
        ObjectNode item = Json.object();
        item.put("id", itemId);
        item.put("type", "message");
        item.put("status", status);
        item.put("role", "assistant");
        if (text == null) {
            item.putArray("content");
        } else {
            item.putArray("content").add(part(text));
        }
        return item;
    }

    private static ObjectNode part(String text) {
        ObjectNode part = Json.object();
        part.put("type", "output_text");
        part.put("text", text);
        part.putArray("annotations");
        part.putArray("logprobs");
        return part;
    }
}
