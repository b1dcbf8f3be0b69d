package dev.sluice.simulator.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The one ObjectMapper of the simulator, and shorthands to build and print JSON trees. */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    public static ArrayNode array() {
        return MAPPER.createArrayNode();
    }

    /** Parses a body; null when it is not JSON. */
    public static JsonNode parse(byte[] body) {
        try {
            return body.length == 0 ? null : MAPPER.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    public static String text(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static byte[] bytes(JsonNode node) {
        return text(node).getBytes(StandardCharsets.UTF_8);
    }

    /** An int field if present and numeric, else null. */
    public static Integer optInt(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isNumber() ? v.asInt() : null;
    }

    /** A text field if present, else {@code fallback}. */
    public static String optText(JsonNode node, String field, String fallback) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isTextual() ? v.asText() : fallback;
    }
}
