package dev.sluice.simulator.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * Deterministic model output: one word per token from a fixed vocabulary, so the same request
 * always yields the same text and the number of tokens is exact.
 */
public final class TextGenerator {
    private static final String[] WORDS = {
        "Sluice", "keeps", "the", "flow", "of", "tokens", "steady", "under", "every", "limit",
        "while", "callers", "wait", "their", "turn", "and", "nothing", "spills", "over", "the",
        "weir"
    };

    private TextGenerator() {}

    /** The pieces of text of {@code count} tokens; each after the first starts with a space. */
    public static List<String> tokens(int count) {
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String word = WORDS[i % WORDS.length];
            out.add(i == 0 ? word : " " + word);
        }
        return out;
    }

    /** The whole text of {@code count} tokens. */
    public static String text(int count) {
        return String.join("", tokens(count));
    }
}
