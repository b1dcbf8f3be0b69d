package dev.sluice.core.provider.bedrock;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import java.io.IOException;

/**
 * Reads usage from a JSON answer without usage headers: a Converse answer ({@code usage} beside
 * {@code output.message}) or an Anthropic body returned by InvokeModel ({@code usage} after
 * {@code content}). The body is kept up to a cap and walked when it ends; without a usage object
 * the generated text is counted; past the cap the body's size counts as output, capped by the
 * request's maximum. Never throws.
 */
final class BedrockBodyUsage implements UsageParser, JsonVisitor {

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final BoundedBody body;
    private final BedrockUsageTally tally = new BedrockUsageTally();
    private boolean finished;

    BedrockBodyUsage(RequestFacts facts, TokenEstimator estimator, int capBytes, long expectedBytes) {
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
            body.walk(this);
        }
    }

    @Override
    public Usage usage() {
        if (!body.overflowed() || tally.inputReported() || tally.outputReported()) {
            return tally.toUsage(facts, estimator, true);
        }
        return UsageParser.bySize(facts, estimator, body.bytesSeen());
    }

    @Override
    public ProviderError streamError() {
        return null; // a JSON answer with status 2xx carries no failure of its own
    }

    @Override
    public void scalar(String path, JsonParser p) throws IOException {
        if (path.startsWith("usage.")) {
            tally.usageField(path.substring(6), p);
        } else if (path.equals("output.message.content[].text")
                || path.equals("output.message.content[].reasoningContent.reasoningText.text")
                || path.equals("content[].text")
                || path.equals("content[].thinking")) {
            tally.generated(JsonScalars.stringLength(p));
        }
    }

    @Override
    public boolean enter(String path) {
        return !path.equals("content[].input") && !path.equals("output.message.content[].toolUse.input");
    }

    @Override
    public void skipped(String path, long length) {
        tally.generated(length); // a tool call's arguments, generated as JSON
    }
}
