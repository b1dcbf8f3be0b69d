package dev.sluice.instrumentation.langchain4j;

import dev.sluice.bootstrap.RetryLayers;
import java.util.concurrent.Callable;
import net.bytebuddy.asm.Advice;

/** {@code RetryPolicy.withRetry(Callable, int)}: watches each attempt for a governed call. */
public final class WithRetryAdvice {

    private WithRetryAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(
            @Advice.Argument(value = 0, readOnly = false) Callable<?> action, @Advice.Argument(1) int maxRetries) {
        action = RetryLayers.watch(LangChain4jInstrumentation.LAYER, action, maxRetries);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        RetryLayers.endWatch();
    }
}
