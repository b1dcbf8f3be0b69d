package dev.sluice.instrumentation.springretry;

import dev.sluice.bootstrap.RetryLoops;
import net.bytebuddy.asm.Advice;

/** {@code RetryTemplate.canRetry(policy, context)}: no, once Sluice decided the last attempt. */
public final class CanRetryAdvice {

    private CanRetryAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.Return(readOnly = false) boolean canRetry) {
        canRetry = RetryLoops.mayRetry(canRetry);
    }
}
