package dev.sluice.instrumentation.openai;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Collections;
import java.util.List;

/**
 * Stands openai-java's retry loop ({@code com.openai.core.http.RetryingHttpClient}, 4.x, checked
 * with javap on 4.101.0) aside for the calls Sluice governs, so the provider sees Sluice's
 * attempts only.
 *
 * <p>The loop asks two private questions after each attempt, {@code shouldRetry(HttpResponse)}
 * and {@code shouldRetry(Throwable)}. A response Sluice hands back already says
 * {@code x-should-retry: false}, which the first obeys; the advice on it only counts the retries
 * that header declined. The advice on the second answers false for a failure Sluice ended a
 * governed call with (registered in {@code RetryLayers}), which the SDK would otherwise retry up to
 * {@code maxRetries} more times, each a full Sluice call.
 *
 * <p>Why the decisions and not {@code maxRetries} forced to 0 in the builder: the decision is per
 * call, so a client talking to a host Sluice does not govern, a client used while the mode is
 * {@code observe}, and a client built before a late attach all keep or lose the SDK's retries
 * exactly when they should; a builder-time 0 is frozen at build time, blind to the base URL and
 * to a mode switched over JMX. For a governed call the effect is the same as {@code maxRetries=0}:
 * one pass through the loop, no SDK backoff. Advice only, no helper: it reaches the bridge alone.
 */
public final class OpenAiJavaInstrumentation extends InstrumentationModule {

    /** The layer's name in Sluice's counters. */
    public static final String LAYER = "openai-java";

    @Override
    public String name() {
        return LAYER;
    }

    @Override
    public List<String> hookedTypeNames() {
        return Collections.singletonList("com.openai.core.http.RetryingHttpClient");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(
                named("shouldRetry").and(takesArguments(1)).and(takesArgument(0, Throwable.class)),
                DeclineFailureRetryAdvice.class.getName());
        sink.advise(
                named("shouldRetry")
                        .and(takesArguments(1))
                        .and(takesArgument(0, named("com.openai.core.http.HttpResponse"))),
                CountResponseRetryAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.openai.helper.";
    }

    /** None: the advice calls the bridge only, so no helper is ever defined. */
    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.openai.helper.None";
    }
}
