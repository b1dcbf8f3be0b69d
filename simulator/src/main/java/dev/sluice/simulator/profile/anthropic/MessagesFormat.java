package dev.sluice.simulator.profile.anthropic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.protocol.Ending;
import dev.sluice.simulator.protocol.Ids;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.ModelCall;
import dev.sluice.simulator.protocol.Pacing;
import dev.sluice.simulator.protocol.Reply;
import dev.sluice.simulator.protocol.Sse;
import dev.sluice.simulator.protocol.TextGenerator;
import java.time.Duration;
import java.util.List;

/**
 * The Messages API's {@code message} body and its event stream: {@code message_start} (input
 * usage), {@code content_block_start}, {@code ping}, {@code content_block_delta}s, {@code
 * content_block_stop}, {@code message_delta} (cumulative usage), {@code message_stop}.
 */
final class MessagesFormat {
    private MessagesFormat() {}

    static Reply whole(ModelCall call, Pacing pacing, Ending ending) {
        ObjectNode message = message(Ids.next("msg_"), call, TextGenerator.text(call.outputTokens()));
        message.put("stop_reason", stopReason(call));
        message.set("usage", usage(call, call.outputTokens()));
        return Reply.whole(Json.bytes(message), pacing.total(call.outputTokens()), ending);
    }

    static Reply stream(ModelCall call, Pacing pacing, Ending ending) {
        Reply reply = Reply.eventStream();
        Duration start = pacing.firstByte();
        ObjectNode message = message(Ids.next("msg_"), call, null);
        message.putNull("stop_reason");
        message.set("usage", usage(call, 1));
        ObjectNode messageStart = type("message_start");
        messageStart.set("message", message);
        reply.frame(start, Sse.event("message_start", messageStart));
        ObjectNode blockStart = type("content_block_start");
        blockStart.put("index", 0);
        ObjectNode block = blockStart.putObject("content_block");
        block.put("type", "text");
        block.put("text", "");
        reply.frame(start, Sse.event("content_block_start", blockStart));
        reply.frame(start, Sse.event("ping", type("ping")));
        List<String> tokens = TextGenerator.tokens(call.outputTokens());
        int cut = ending == Ending.COMPLETE ? tokens.size() : tokens.size() / 2;
        for (int i = 0; i < cut; i++) {
            ObjectNode delta = type("content_block_delta");
            delta.put("index", 0);
            ObjectNode d = delta.putObject("delta");
            d.put("type", "text_delta");
            d.put("text", tokens.get(i));
            reply.frame(pacing.tokenAt(i + 1), Sse.event("content_block_delta", delta));
        }
        Duration end = pacing.tokenAt(cut);
        if (ending == Ending.TRUNCATED) {
            return reply.truncated();
        }
        if (ending == Ending.MID_STREAM_ERROR) {
            ObjectNode error = type("error");
            error.set("error", AnthropicErrors.error("overloaded_error", "Overloaded"));
            return reply.frame(end, Sse.event("error", error));
        }
        ObjectNode blockStop = type("content_block_stop");
        blockStop.put("index", 0);
        reply.frame(end, Sse.event("content_block_stop", blockStop));
        ObjectNode messageDelta = type("message_delta");
        ObjectNode delta = messageDelta.putObject("delta");
        delta.put("stop_reason", stopReason(call));
        delta.putNull("stop_sequence");
        messageDelta.set("usage", usage(call, call.outputTokens()));
        reply.frame(end, Sse.event("message_delta", messageDelta));
        return reply.frame(end, Sse.event("message_stop", type("message_stop")));
    }

    private static ObjectNode message(String id, ModelCall call, String text) {
        ObjectNode m = Json.object();
        m.put("id", id);
        m.put("type", "message");
        m.put("role", "assistant");
        m.put("model", call.model());
        if (text == null) {
            m.putArray("content");
        } else {
            ObjectNode block = m.putArray("content").addObject();
            block.put("type", "text");
            block.put("text", text);
        }
        m.putNull("stop_reason");
        m.putNull("stop_sequence");
        return m;
    }

    private static ObjectNode usage(ModelCall call, int outputTokens) {
        ObjectNode usage = Json.object();
        usage.put("input_tokens", call.inputTokens());
        usage.put("cache_creation_input_tokens", call.cacheCreationTokens());
        usage.put("cache_read_input_tokens", call.cacheReadTokens());
        usage.put("output_tokens", outputTokens);
        usage.put("service_tier", "standard");
        return usage;
    }

    private static ObjectNode type(String type) {
        ObjectNode node = Json.object();
        node.put("type", type);
        return node;
    }

    private static String stopReason(ModelCall call) {
        return call.hitMaxTokens() ? "max_tokens" : "end_turn";
    }
}
