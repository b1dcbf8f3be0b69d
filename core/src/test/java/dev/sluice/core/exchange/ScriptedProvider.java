package dev.sluice.core.exchange;

import dev.sluice.config.Dimension;
import dev.sluice.core.Rejection;
import dev.sluice.core.Usage;
import dev.sluice.core.provider.Headers;
import dev.sluice.core.provider.LocalAnswer;
import dev.sluice.core.provider.ProviderAdapter;
import dev.sluice.core.provider.ProviderError;
import dev.sluice.core.provider.ProviderRequest;
import dev.sluice.core.provider.RateLimitSnapshot;
import dev.sluice.core.provider.RequestFacts;
import dev.sluice.core.provider.TokenEstimator;
import dev.sluice.core.provider.UsageParser;
import dev.sluice.core.retry.OutcomeClass;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A tiny provider protocol for engine tests: the body is the prompt, usage comes back as
 * {@code in=N out=M} (then {@code model=<name>} when the answer names its model), {@code retry-after-ms} is the wait hint, {@code x-limit-requests} and
 * {@code x-remaining-requests} announce a per-second budget.
 */
final class ScriptedProvider implements ProviderAdapter {

    boolean failOnRead;
    long lastRequestChars = -1;
    /** Runs when a body's usage parser is finished, before its usage is read. */
    Runnable whenParsed = () -> {};

    boolean failOnUsage;

    /** The organization an answer names in {@code x-org}, as OpenAI's {@code openai-organization}. */
    @Override
    public String organization(Headers responseHeaders) {
        return responseHeaders.first("x-org");
    }

    @Override
    public String kind() {
        return "scripted";
    }

    @Override
    public boolean recognises(String host, String path) {
        return host.equals("llm.test");
    }

    @Override
    public RequestFacts readRequest(ProviderRequest request, TokenEstimator estimator) {
        if (failOnRead) {
            throw new IllegalStateException("adapter bug");
        }
        long chars = request.body() == null ? 0 : request.bodyLength();
        lastRequestChars = chars;
        String max = request.headers().first("x-max-tokens");
        long in = estimator.estimateInputTokens("m", chars, 0);
        RequestFacts.Builder f = RequestFacts.builder(kind())
                .operation("chat")
                .model("m")
                .estimatedInputTokens(in)
                .apiKeyId(request.headers().first("x-key"));
        if (max != null) {
            f.maxOutputTokens(Long.parseLong(max));
        }
        return f.providerCharge(Dimension.REQUESTS, 1).build();
    }

    @Override
    public UsageParser usageParser(RequestFacts facts, Headers responseHeaders, TokenEstimator estimator) {
        return new UsageParser() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public void accept(byte[] chunk, int offset, int length) {
                text.append(new String(chunk, offset, length, StandardCharsets.UTF_8));
            }

            @Override
            public void finish() {
                whenParsed.run();
            }

            @Override
            public Usage usage() {
                if (failOnUsage) {
                    throw new IllegalStateException("usage parser bug");
                }
                String s = text.toString();
                if (!s.startsWith("in=")) {
                    return Usage.builder()
                            .inputTokens(facts.estimatedInputTokens())
                            .build();
                }
                String[] parts = s.split(" ");
                return Usage.builder()
                        .inputTokens(Long.parseLong(parts[0].substring(3)))
                        .outputTokens(Long.parseLong(parts[1].substring(4)))
                        .reportedByProvider(true)
                        .build();
            }

            /** {@code in=N out=M model=<name>}: the name. */
            @Override
            public String responseModel() {
                String s = text.toString();
                int at = s.indexOf(" model=");
                return at < 0 ? null : s.substring(at + 7);
            }

            @Override
            public ProviderError streamError() {
                return null;
            }
        };
    }

    @Override
    public RateLimitSnapshot readRateLimits(Headers h, long nowEpochMillis) {
        String limit = h.first("x-limit-requests");
        if (limit == null) {
            return RateLimitSnapshot.none();
        }
        String remaining = h.first("x-remaining-requests");
        return RateLimitSnapshot.of(List.of(RateLimitSnapshot.Budget.of(
                "requests",
                Dimension.REQUESTS,
                Long.parseLong(limit),
                remaining == null ? -1 : Long.parseLong(remaining),
                -1,
                1_000)));
    }

    @Override
    public ProviderError classifyError(int status, Headers headers, byte[] body, long nowEpochMillis) {
        OutcomeClass c = status == 429
                ? OutcomeClass.RETRYABLE_CAPACITY
                : status == 503 || status == 529
                        ? OutcomeClass.RETRYABLE_OVERLOAD
                        : status == 402 ? OutcomeClass.NON_RETRYABLE_POLICY : OutcomeClass.NON_RETRYABLE_REQUEST;
        String hint = headers.first("retry-after-ms");
        return ProviderError.builder(c)
                .retryAfterMillis(hint == null ? -1 : Long.parseLong(hint))
                .build();
    }

    @Override
    public LocalAnswer localRejection(Rejection rejection, RequestFacts facts) {
        return LocalAnswer.of(
                429,
                Map.of("x-should-retry", List.of("false")),
                ("local:" + rejection.decision().wireName()).getBytes(StandardCharsets.UTF_8));
    }
}
