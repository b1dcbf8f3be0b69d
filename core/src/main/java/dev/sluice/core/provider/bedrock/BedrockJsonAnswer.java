package dev.sluice.core.provider.bedrock;

import com.fasterxml.jackson.core.JsonParser;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.JsonBodyUsage;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.json.JsonScalars;
import dev.sluice.core.provider.json.JsonVisitor;
import java.io.IOException;

/**
 * What a JSON answer without usage headers tells of its usage: a Converse answer ({@code usage}
 * beside {@code output.message}) or an Anthropic body returned by InvokeModel ({@code usage} after
 * {@code content}), walked whole; without a usage object, the generated text, counted.
 */
final class BedrockJsonAnswer implements JsonBodyUsage.Answer, JsonVisitor {

    private final BedrockUsageTally tally = new BedrockUsageTally();

    /** The usage parser of a JSON answer to a request with these facts. */
    static JsonBodyUsage parser(RequestFacts facts, TokenEstimator estimator, int capBytes, long expectedBytes) {
        return new JsonBodyUsage(facts, estimator, capBytes, expectedBytes, new BedrockJsonAnswer());
    }

    @Override
    public void read(BoundedBody body) {
        body.walk(this);
    }

    @Override
    public Usage usage(RequestFacts facts, TokenEstimator estimator) {
        return tally.toUsage(facts, estimator, true);
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
