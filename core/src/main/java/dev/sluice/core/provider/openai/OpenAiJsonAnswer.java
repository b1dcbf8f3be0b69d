package dev.sluice.core.provider.openai;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.JsonBodyUsage;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.RootString;
import dev.sluice.core.provider.json.TrailingMember;
import java.io.IOException;

/**
 * What a non-streaming OpenAI-format JSON answer (chat completion, response, completion,
 * embeddings) tells of its usage: the {@code usage} object at its end, read alone when found
 * there; without it, the generated text, counted. An embeddings answer too large to keep is worth
 * no output: its size is vectors, not text.
 */
final class OpenAiJsonAnswer implements JsonBodyUsage.Answer, JsonVisitor {

    private static final TrailingMember USAGE = TrailingMember.named("usage");

    private final boolean embeddings;
    private final OpenAiUsageTally tally = new OpenAiUsageTally();

    /** The values of the {@code usage} object, named relative to it. */
    private final JsonVisitor usageOnly = new JsonVisitor() {
        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            tally.usageField(path, p);
        }
    };

    private OpenAiJsonAnswer(boolean embeddings) {
        this.embeddings = embeddings;
    }

    /** The usage parser of a JSON answer to a request with these facts. */
    static JsonBodyUsage parser(RequestFacts facts, TokenEstimator estimator, int capBytes, long expectedBytes) {
        boolean embeddings = OpenAiOperation.EMBEDDINGS.operationName().equals(facts.operation());
        return new JsonBodyUsage(facts, estimator, capBytes, expectedBytes, new OpenAiJsonAnswer(embeddings));
    }

    @Override
    public void read(BoundedBody body) {
        // Usage found at the end spares walking the answer; without a report there, the whole
        // answer is walked to count the generated text.
        if (!body.readTrailingObject(USAGE, OpenAiUsageTally.COUNTS, tally.counts, usageOnly) || !tally.reported()) {
            body.walk(this);
        }
    }

    @Override
    public RootString modelMember() {
        return JsonBodyUsage.MODEL_AT_ROOT;
    }

    @Override
    public Usage usage(RequestFacts facts, TokenEstimator estimator) {
        return tally.toUsage(facts, estimator);
    }

    @Override
    public boolean sizeIsOutput() {
        return !embeddings;
    }

    @Override
    public void scalar(String path, JsonParser p) throws IOException {
        if (path.startsWith("usage.")) {
            tally.usageField(path.substring(6), p);
            return;
        }
        switch (path) {
            case "choices[].message.content":
            case "choices[].message.refusal":
            case "choices[].message.reasoning_content":
            case "choices[].message.tool_calls[].function.arguments":
            case "choices[].text":
            case "output[].content[].text":
            case "output[].arguments":
            case "output[].summary[].text":
                tally.generated(JsonScalars.stringLength(p));
                return;
            default:
        }
    }

    @Override
    public boolean enter(String path) {
        return !path.equals("data"); // embeddings vectors: nothing to read there
    }
}
