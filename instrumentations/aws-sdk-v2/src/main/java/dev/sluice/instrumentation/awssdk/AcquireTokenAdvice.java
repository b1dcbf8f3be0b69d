package dev.sluice.instrumentation.awssdk;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import dev.sluice.instrumentation.api.Advice;

/** {@code RetryableStageHelper.acquireInitialToken()}: no delay before the first attempt of a governed request. */
public final class AcquireTokenAdvice {

    private AcquireTokenAdvice() {}

    @Advice.OnMethodEnter
    public static CallOutcome enter(
            @Advice.Origin Class<?> type, @Advice.This Object stage, @Advice.FieldValue("request") Object request) {
        return Hooks.enter(type, AwsSdkInstrumentation.ACQUIRE, stage, new Object[] {request});
    }

    @Advice.OnMethodExit
    public static void exit(@Advice.Enter CallOutcome outcome, @Advice.Return(readOnly = false) Object delay) {
        if (outcome != null) {
            delay = outcome.response();
        }
    }
}
