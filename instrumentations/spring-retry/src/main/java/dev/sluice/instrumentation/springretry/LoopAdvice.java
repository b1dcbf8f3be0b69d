package dev.sluice.instrumentation.springretry;

import dev.sluice.bootstrap.RetryLoops;
import net.bytebuddy.asm.Advice;

/** {@code RetryTemplate.doExecute(callback, recovery, state)}: one retry loop on this thread. */
public final class LoopAdvice {

    private LoopAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter() {
        RetryLoops.enter();
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit() {
        RetryLoops.exit(SpringRetryInstrumentation.LAYER);
    }
}
