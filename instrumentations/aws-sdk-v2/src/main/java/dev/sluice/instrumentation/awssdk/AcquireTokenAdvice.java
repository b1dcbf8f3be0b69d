package dev.sluice.instrumentation.awssdk;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** {@code RetryableStageHelper.acquireInitialToken()}: no delay before the first attempt of a governed request. */
public final class AcquireTokenAdvice {

    private AcquireTokenAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type, @Advice.This Object stage, @Advice.FieldValue("request") Object request) {
        return Hooks.enter(type, AwsSdkInstrumentation.ACQUIRE, stage, new Object[] {request});
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(
            @Advice.Enter CallOutcome outcome,
            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object delay) {
        if (outcome != null) {
            delay = outcome.response();
        }
    }
}
