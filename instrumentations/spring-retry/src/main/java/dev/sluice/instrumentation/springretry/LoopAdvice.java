package dev.sluice.instrumentation.springretry;

import dev.sluice.bootstrap.RetryLoops;
import dev.sluice.instrumentation.api.Advice;

/** {@code RetryTemplate.doExecute(callback, recovery, state)}: one retry loop on this thread. */
public final class LoopAdvice {

    private LoopAdvice() {}

    @Advice.OnMethodEnter
    public static void enter() {
        RetryLoops.enter();
    }

    @Advice.OnMethodExit(onThrowable = true)
    public static void exit() {
        RetryLoops.exit(SpringRetryInstrumentation.LAYER);
    }
}
