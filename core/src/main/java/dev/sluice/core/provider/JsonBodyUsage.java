package dev.sluice.core.provider;

import dev.sluice.core.Usage;
import dev.sluice.core.provider.json.BoundedBody;
import dev.sluice.core.provider.json.RootString;

/**
 * Reads usage from a non-streaming JSON answer of any provider: usage sits at the answer's end (or
 * in the last element of an array stream), so the body is kept up to a cap and read once, when it
 * ends, by the provider's {@link Answer}. Past the cap Sluice gives up reading and counts the
 * body's size as output, capped by the request's maximum, erring toward charging too much rather
 * than too little. Never throws.
 */
public final class JsonBodyUsage implements UsageParser {

    /** The {@code model} member at an answer's root, where OpenAI's and Anthropic's answers name it. */
    public static final RootString MODEL_AT_ROOT = RootString.named("model");

    /** What one provider reads from its whole JSON answer. */
    public interface Answer {

        /** Reads the kept body, once, when it has ended. */
        void read(BoundedBody body);

        /** The usage read: the provider's report, else what the generated text seen is worth. */
        Usage usage(RequestFacts facts, TokenEstimator estimator);

        /** The root member naming the model the answer came from, read once it ended; null for none. */
        default RootString modelMember() {
            return null;
        }

        /** The model the answer named, for one read otherwise than at the root; null when it names none. */
        default String responseModel() {
            return null;
        }

        /** Whether the size of a body too large to keep counts as output (not for an answer of vectors). */
        default boolean sizeIsOutput() {
            return true;
        }

        /** An error the answer carried although its status was 2xx, or null. */
        default ProviderError streamError() {
            return null;
        }
    }

    private final RequestFacts facts;
    private final TokenEstimator estimator;
    private final BoundedBody body;
    private final Answer answer;
    private boolean finished;
    private String model;

    /**
     * @param capBytes the most of the body kept to be read
     * @param expectedBytes the body's announced length, or negative (see {@link BoundedBody})
     */
    public JsonBodyUsage(
            RequestFacts facts, TokenEstimator estimator, int capBytes, long expectedBytes, Answer answer) {
        this.facts = facts;
        this.estimator = estimator;
        this.body = new BoundedBody(capBytes, expectedBytes);
        this.answer = answer;
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
            answer.read(body);
            RootString member = answer.modelMember();
            if (member != null) {
                model = body.rootString(member);
            }
        }
    }

    @Override
    public Usage usage() {
        if (!body.overflowed()) {
            return answer.usage(facts, estimator);
        }
        if (!answer.sizeIsOutput()) {
            return Usage.builder()
                    .inputTokens(facts.estimatedInputTokens())
                    .reportedByProvider(false)
                    .build();
        }
        return UsageParser.bySize(facts, estimator, body.bytesSeen());
    }

    @Override
    public String responseModel() {
        return model != null ? model : answer.responseModel();
    }

    @Override
    public ProviderError streamError() {
        return answer.streamError();
    }
}
