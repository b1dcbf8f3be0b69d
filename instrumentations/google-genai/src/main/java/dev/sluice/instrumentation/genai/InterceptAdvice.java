package dev.sluice.instrumentation.genai;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** {@code RetryInterceptor.intercept(Chain)}: a governed request proceeds once, through the helper. */
public final class InterceptAdvice {

    private InterceptAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type,
            @Advice.This Object interceptor,
            @Advice.Argument(0) Object chain,
            @Advice.FieldValue("retryOptions") Object retryOptions) {
        return Hooks.enterRetryLayer(
                type, GoogleGenAiInstrumentation.INTERCEPT, interceptor, new Object[] {chain, retryOptions});
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(
            @Advice.Enter CallOutcome outcome,
            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object response,
            @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (outcome != null) {
            thrown = outcome.failure();
            response = outcome.response();
        }
    }
}
