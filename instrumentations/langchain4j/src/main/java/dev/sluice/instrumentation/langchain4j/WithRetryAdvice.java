package dev.sluice.instrumentation.langchain4j;

import dev.sluice.bootstrap.RetryLayers;
import dev.sluice.instrumentation.api.Advice;
import java.util.concurrent.Callable;

/** {@code RetryPolicy.withRetry(Callable, int)}: watches each attempt for a governed call. */
public final class WithRetryAdvice {

    private WithRetryAdvice() {}

    @Advice.OnMethodEnter
    public static void enter(
            @Advice.Argument(value = 0, readOnly = false) Callable<?> action, @Advice.Argument(1) int maxRetries) {
        action = RetryLayers.watch(LangChain4jInstrumentation.LAYER, action, maxRetries);
    }

    @Advice.OnMethodExit(onThrowable = true)
    public static void exit() {
        RetryLayers.endWatch();
    }
}
