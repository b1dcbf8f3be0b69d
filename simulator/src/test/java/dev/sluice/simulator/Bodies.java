package dev.sluice.simulator;

/** Request bodies the tests send. */
final class Bodies {
    private Bodies() {}

    /** A chat request whose prompt is {@code chars} characters (chars/4 tokens). */
    static String chat(int chars, Integer maxTokens, boolean stream, boolean includeUsage) {
        return "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(chars)
                + "\"}]" + (maxTokens == null ? "" : ",\"max_tokens\":" + maxTokens)
                + (stream ? ",\"stream\":true" : "")
                + (includeUsage ? ",\"stream_options\":{\"include_usage\":true}" : "") + "}";
    }

    static String chat() {
        return chat(40, 10, false, false);
    }

    static String anthropic(int chars, int maxTokens, boolean stream) {
        return "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":" + maxTokens
                + (stream ? ",\"stream\":true" : "")
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(chars) + "\"}]}";
    }

    static String gemini(int chars, Integer maxTokens) {
        return "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"" + "x".repeat(chars) + "\"}]}]"
                + (maxTokens == null ? "" : ",\"generationConfig\":{\"maxOutputTokens\":" + maxTokens + "}")
                + "}";
    }
}
