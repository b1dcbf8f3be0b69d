package dev.sluice.instrumentation.langchain4j;

import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Collections;
import java.util.List;

/**
 * Neutralises langchain4j's retry loop, {@code dev.langchain4j.internal.RetryUtils$RetryPolicy}
 * (1.x, source of 1.19.0): {@code withRetry(Callable, int maxRetries)}, which the chat and
 * embedding models call with {@code maxRetries} 2 by default and which retries any exception but
 * {@code NonRetriableException} (429 and 5xx included) after {@code sleep(retry)}, ignoring the
 * provider's wait hint.
 *
 * <p>The loop only sees exceptions the model builds from the HTTP answer, so it cannot be told
 * "Sluice decided" through the answer. Instead each attempt is watched: the advice on
 * {@code withRetry} wraps the action, and if a governed call ran on the thread during a failed
 * attempt (Sluice counts synchronous governed calls per thread), the advice on {@code sleep(int)}
 * (the loop's backoff, reached only when it is about to retry) ends the loop by throwing that
 * failure, exactly as the loop itself throws when its retries are spent. Attempts that did not go
 * through Sluice (a host it does not govern, mode {@code observe}) retry as written. Execution-path
 * hooks, so a late attach is covered. Advice only; it reaches the bridge alone.
 */
public final class LangChain4jInstrumentation extends InstrumentationModule {

    /** The layer's name in Sluice's counters. */
    public static final String LAYER = "langchain4j";

    @Override
    public String name() {
        return LAYER;
    }

    @Override
    public List<String> hookedTypeNames() {
        return Collections.singletonList("dev.langchain4j.internal.RetryUtils$RetryPolicy");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(
                named("withRetry")
                        .and(isPublic())
                        .and(takesArguments(2))
                        .and(takesArgument(0, named("java.util.concurrent.Callable")))
                        .and(takesArgument(1, int.class)),
                WithRetryAdvice.class.getName());
        sink.advise(
                named("sleep").and(isPublic()).and(takesArguments(1)).and(takesArgument(0, int.class)),
                SleepAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.langchain4j.helper.";
    }

    /** None: the advice calls the bridge only, so no helper is ever defined. */
    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.langchain4j.helper.None";
    }
}
