package dev.sluice.core.provider.anthropic;

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
 * What a non-streaming Messages answer tells of its usage: the {@code usage} object at its end,
 * read alone when found there with both counts; without it, the generated text (text, thinking,
 * tool-call input), counted.
 */
final class AnthropicJsonAnswer implements JsonBodyUsage.Answer, JsonVisitor {

    private static final TrailingMember USAGE = TrailingMember.named("usage");

    private final AnthropicUsageTally tally = new AnthropicUsageTally();

    /** The values of the {@code usage} object, named relative to it. */
    private final JsonVisitor usageOnly = new JsonVisitor() {
        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            tally.usageField(path, p);
        }
    };

    /** The usage parser of a JSON answer to a request with these facts. */
    static JsonBodyUsage parser(RequestFacts facts, TokenEstimator estimator, int capBytes, long expectedBytes) {
        return new JsonBodyUsage(facts, estimator, capBytes, expectedBytes, new AnthropicJsonAnswer());
    }

    @Override
    public void read(BoundedBody body) {
        // Usage ends a message: found there with both counts, the content before it is not walked.
        if (!body.readTrailingObject(USAGE, AnthropicUsageTally.COUNTS, tally.counts, usageOnly)
                || !tally.inputReported()
                || !tally.outputReported()) {
            body.walk(this);
        }
    }

    @Override
    public RootString modelMember() {
        return JsonBodyUsage.MODEL_AT_ROOT;
    }

    @Override
    public Usage usage(RequestFacts facts, TokenEstimator estimator) {
        return tally.toUsage(facts, estimator, true);
    }

    @Override
    public void scalar(String path, JsonParser p) throws IOException {
        if (path.startsWith("usage.")) {
            tally.usageField(path.substring(6), p);
        } else if (path.equals("content[].text") || path.equals("content[].thinking")) {
            tally.generated(JsonScalars.stringLength(p));
        }
    }

    @Override
    public boolean enter(String path) {
        return !path.equals("content[].input");
    }

    @Override
    public void skipped(String path, long length) {
        tally.generated(length); // a tool call's arguments, generated as JSON
    }
}
