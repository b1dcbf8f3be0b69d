package dev.sluice.instrumentation.okhttp;

import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/**
 * {@code RealCall.cancel()}: also cancels the governed call's in-flight attempt and stops retries.
 * On exit, so the application's call is already marked cancelled when its attempt fails.
 */
public final class CancelAdvice {

    private CancelAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.Origin Class<?> type, @Advice.This Object call) {
        Hooks.enter(type, OkHttpInstrumentation.CANCEL, call, null);
    }
}
