package dev.sluice.simulator.profile.anthropic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.protocol.Ids;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.Reply;

/** Anthropic's error envelope: {@code {"type":"error","error":{...},"request_id":"req_..."}}. */
final class AnthropicErrors {
    private AnthropicErrors() {}

    static ObjectNode error(String type, String message) {
        ObjectNode error = Json.object();
        error.put("type", type);
        error.put("message", message);
        return error;
    }

    static Reply reply(int status, String type, String message) {
        return reply(status, type, message, null);
    }

    static Reply reply(int status, String type, String message, ObjectNode details) {
        ObjectNode error = error(type, message);
        if (details != null) {
            error.set("details", details);
        }
        ObjectNode root = Json.object();
        root.put("type", "error");
        root.set("error", error);
        root.put("request_id", Ids.next("req_"));
        return Reply.json(status, Json.bytes(root));
    }
}
