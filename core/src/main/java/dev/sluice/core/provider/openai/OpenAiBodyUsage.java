package dev.sluice.core.provider.openai;

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
 * Reads usage from a non-streaming OpenAI-format JSON answer (chat completion, response,
 * completion, embeddings): {@code usage} sits at the end, so the body is kept up to a cap and read
 * when it ends. Without a usage object the generated text is counted; past the cap Sluice gives up
 * reading and counts the body's size as output (capped by the request's maximum), erring toward
 * charging too much rather than too little. Never throws.
 */
final class OpenAiBodyUsage implements UsageParser, JsonVisitor {

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final boolean embeddings;
    private final BoundedBody body;
    private final UsageTally tally = new UsageTally();
    private boolean finished;
    private String model;

    OpenAiBodyUsage(RequestFacts facts, TokenEstimator estimator, int capBytes, long expectedBytes) {
        this.facts = facts;
        this.estimator = estimator;
        this.embeddings = OpenAiOperation.EMBEDDINGS.operationName().equals(facts.operation());
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
            // Usage found at the end spares walking the answer; without a report there, the whole
            // answer is walked to count the generated text.
            if (!body.readTrailingObject(USAGE, UsageTally.COUNTS, tally.counts, usageOnly) || !tally.reported()) {
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
        if (tally.reported() || !body.overflowed()) {
            return tally.toUsage(facts, estimator);
        }
        if (embeddings) {
            return UsageTally.counted(facts, estimator, 0);
        }
        Usage bySize = UsageTally.counted(facts, estimator, body.bytesSeen());
        long max = facts.maxOutputTokens();
        return max < 0 || bySize.outputTokens() <= max
                ? bySize
                : Usage.builder()
                        .inputTokens(bySize.inputTokens())
                        .outputTokens(max)
                        .reportedByProvider(false)
                        .build();
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
