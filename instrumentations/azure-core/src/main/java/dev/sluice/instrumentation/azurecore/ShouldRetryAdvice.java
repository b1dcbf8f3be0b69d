package dev.sluice.instrumentation.azurecore;

import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code RetryPolicy.shouldRetry(strategy, response, tryCount, suppressed)} and
 * {@code shouldRetryException(strategy, throwable, tryCount, suppressed)}: a "retry" the policy
 * decided for what Sluice already decided becomes "no retry".
 */
public final class ShouldRetryAdvice {

    private ShouldRetryAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(
            @Advice.Origin Class<?> type,
            @Advice.Origin("#m") String method,
            @Advice.AllArguments Object[] args,
            @Advice.Return(readOnly = false) boolean retry) {
        if (retry) {
            int site = method.equals("shouldRetry")
                    ? AzureCoreInstrumentation.RESPONSE
                    : AzureCoreInstrumentation.EXCEPTION;
            if (Hooks.enter(type, site, null, args) != null) {
                retry = false;
            }
        }
    }
}
