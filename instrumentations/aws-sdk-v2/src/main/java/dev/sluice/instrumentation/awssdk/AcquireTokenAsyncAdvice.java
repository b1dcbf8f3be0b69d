package dev.sluice.instrumentation.awssdk;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** {@code RetryableStageHelper.acquireInitialTokenAsync()}: its future's delay becomes zero for a governed request. */
public final class AcquireTokenAsyncAdvice {

    private AcquireTokenAsyncAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(
            @Advice.Origin Class<?> type,
            @Advice.This Object stage,
            @Advice.FieldValue("request") Object request,
            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object delay) {
        CallOutcome outcome =
                Hooks.enter(type, AwsSdkInstrumentation.ACQUIRE_ASYNC, stage, new Object[] {request, delay});
        if (outcome != null) {
            delay = outcome.response();
        }
    }
}
