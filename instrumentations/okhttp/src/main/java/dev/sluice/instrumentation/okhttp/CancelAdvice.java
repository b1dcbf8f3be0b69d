package dev.sluice.instrumentation.okhttp;

import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/** {@code RealCall.cancel()}: also cancels the governed call's in-flight attempt and stops retries. */
public final class CancelAdvice {

    private CancelAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.Origin Class<?> type, @Advice.This Object call) {
        Hooks.enter(type, OkHttpInstrumentation.CANCEL, call, null);
    }
}
