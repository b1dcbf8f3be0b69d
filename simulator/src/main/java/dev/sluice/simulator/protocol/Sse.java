package dev.sluice.simulator.protocol;

import com.fasterxml.jackson.databind.JsonNode;

/** Server-sent-event framing as the providers write it. */
public final class Sse {
    private Sse() {}

    /** {@code data: <json>} and a blank line (OpenAI chat, Gemini). */
    public static String data(JsonNode json) {
        return "data: " + Json.text(json) + "\n\n";
    }

    /** {@code event: <name>}, {@code data: <json>} and a blank line (Anthropic, Responses API). */
    public static String event(String name, JsonNode json) {
        return "event: " + name + "\ndata: " + Json.text(json) + "\n\n";
    }
}
