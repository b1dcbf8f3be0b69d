package dev.sluice.simulator.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Set;

/**
 * Estimates tokens the way providers do at admission, before any tokenizer: one token per four
 * characters of message text (rounded up). Only text counts, found under the fields that carry
 * it in the providers' request shapes, so model names, roles and options do not inflate it.
 */
public final class TokenEstimator {
    private static final Set<String> TEXT_FIELDS =
            Set.of("content", "text", "input", "instructions", "system", "prompt");

    private TokenEstimator() {}

    /** Tokens for {@code chars} characters. */
    public static int tokensForChars(long chars) {
        return (int) Math.min(Integer.MAX_VALUE, (chars + 3) / 4);
    }

    /** Characters of message text under {@code node} (every text field, at any depth). */
    public static long textChars(JsonNode node) {
        return textChars(node, false);
    }

    /** Tokens of message text under {@code node}. */
    public static int estimate(JsonNode node) {
        return tokensForChars(textChars(node));
    }

    private static long textChars(JsonNode node, boolean underTextField) {
        if (node == null) {
            return 0;
        }
        if (node.isTextual()) {
            return underTextField ? node.asText().length() : 0;
        }
        long sum = 0;
        if (node.isArray()) {
            for (JsonNode item : node) {
                sum += textChars(item, underTextField);
            }
        } else if (node.isObject()) {
            for (Map.Entry<String, JsonNode> f : node.properties()) {
                sum += textChars(f.getValue(), TEXT_FIELDS.contains(f.getKey()) || isTextArray(f));
            }
        }
        return sum;
    }

    // "messages", "contents", "parts" hold text in their items.
    private static boolean isTextArray(Map.Entry<String, JsonNode> f) {
        String k = f.getKey();
        return f.getValue().isArray() && (k.equals("messages") || k.equals("contents") || k.equals("parts"));
    }
}
