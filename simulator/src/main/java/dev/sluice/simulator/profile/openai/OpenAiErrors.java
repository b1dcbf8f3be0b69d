package dev.sluice.simulator.profile.openai;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.simulator.protocol.Json;
import dev.sluice.simulator.protocol.Reply;

/** OpenAI's error envelope: {@code {"error":{"message","type","param","code"}}}. */
public final class OpenAiErrors {
    private OpenAiErrors() {}

    public static ObjectNode body(String message, String type, String code) {
        ObjectNode error = Json.object();
        error.put("message", message);
        error.put("type", type);
        error.putNull("param");
        if (code == null) {
            error.putNull("code");
        } else {
            error.put("code", code);
        }
        ObjectNode root = Json.object();
        root.set("error", error);
        return root;
    }

    public static Reply reply(int status, String message, String type, String code) {
        return Reply.json(status, Json.bytes(body(message, type, code)));
    }

    public static Reply notFound(String path) {
        return reply(404, "Invalid URL (POST " + path + ")", "invalid_request_error", null);
    }

    public static Reply invalidJson() {
        return reply(
                400,
                "We could not parse the JSON body of your request. (HINT: This likely means you aren't"
                        + " using your HTTP library correctly. The OpenAI API expects a JSON payload, but what"
                        + " was sent was not valid JSON.",
                "invalid_request_error",
                null);
    }

    public static Reply overloaded() {
        return reply(503, "The server is overloaded or not ready yet.", "server_error", "server_is_overloaded");
    }

    public static Reply insufficientQuota() {
        return reply(
                429,
                "You exceeded your current quota, please check your plan and billing details. For more"
                        + " information on this error, read the docs:"
                        + " https://platform.openai.com/docs/guides/error-codes/api-errors.",
                "insufficient_quota",
                "insufficient_quota");
    }

    public static Reply serverError() {
        return reply(
                500, "The server had an error while processing your request. Sorry about that!", "server_error", null);
    }

    public static Reply badRequest() {
        return reply(400, "Invalid request (forced by the simulator).", "invalid_request_error", "invalid_request");
    }
}
