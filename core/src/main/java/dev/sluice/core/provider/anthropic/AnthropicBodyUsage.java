package dev.sluice.core.provider.anthropic;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import dev.sluice.core.provider.json.RootString;
import dev.sluice.core.provider.json.TrailingMember;
import java.io.IOException;

/**
 * Reads usage from a non-streaming Messages answer: {@code usage} sits at the end, so the body is
 * kept up to a cap and read when it ends. Without a usage object the generated text (text,
 * thinking, tool-call input) is counted; past the cap the body's size counts as output, capped by
 * {@code max_tokens}, erring toward charging too much. Never throws.
 */
final class AnthropicBodyUsage implements UsageParser, JsonVisitor {

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final BoundedBody body;
    private final AnthropicUsageTally tally = new AnthropicUsageTally();
    private boolean finished;
    private String model;

    AnthropicBodyUsage(RequestFacts facts, TokenEstimator estimator, int capBytes, long expectedBytes) {
        this.facts = facts;
        this.estimator = estimator;
        this.body = new BoundedBody(capBytes, expectedBytes);
    }

    @Override
    public void accept(byte[] chunk, int offset, int length) {
        if (!finished) {
            body.append(chunk, offset, length);
        }
    }

    @Override
    public void adopt(byte[] bytes, int length) {
        if (!finished) {
            body.adopt(bytes, length);
        }
    }

    @Override
    public void finish() {
        if (!finished) {
            finished = true;
            // Usage ends a message: found there with both counts, the content before it is not walked.
            if (!body.readTrailingObject(USAGE, AnthropicUsageTally.COUNTS, tally.counts, usageOnly)
                    || !tally.inputReported()
                    || !tally.outputReported()) {
                body.walk(this);
            }
            model = body.rootString(MODEL);
        }
    }

    private static final TrailingMember USAGE = TrailingMember.named("usage");

    private static final RootString MODEL = RootString.named("model");

    /** The values of the {@code usage} object, named relative to it. */
    private final JsonVisitor usageOnly = new JsonVisitor() {
        @Override
        public void scalar(String path, JsonParser p) throws IOException {
            tally.usageField(path, p);
        }
    };

    @Override
    public Usage usage() {
        if (!body.overflowed() || tally.inputReported() || tally.outputReported()) {
            return tally.toUsage(facts, estimator, true);
        }
        return UsageParser.bySize(facts, estimator, body.bytesSeen());
    }

    @Override
    public String responseModel() {
        return model;
    }

    @Override
    public ProviderError streamError() {
        return null; // a JSON answer with status 2xx carries no failure of its own
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
