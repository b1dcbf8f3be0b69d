package dev.sluice.instrumentation.springretry;

import dev.sluice.bootstrap.RetryLoops;
import net.bytebuddy.asm.Advice;

/** {@code RetryTemplate.registerThrowable(policy, state, context, failure)}: an attempt failed. */
public final class AttemptFailedAdvice {

    private AttemptFailedAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.Argument(3) Throwable failure) {
        RetryLoops.attemptFailed(SpringRetryInstrumentation.LAYER, failure);
    }
}
