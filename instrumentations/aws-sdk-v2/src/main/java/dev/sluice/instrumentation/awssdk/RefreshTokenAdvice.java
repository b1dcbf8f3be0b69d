package dev.sluice.instrumentation.awssdk;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * {@code RetryableStageHelper.tryRefreshToken(suggestedDelay)} and {@code tryRefreshTokenAsync}:
 * for a failure Sluice decided, "no retry" without asking the SDK's strategy.
 */
public final class RefreshTokenAdvice {

    private RefreshTokenAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type,
            @Advice.Origin("#m") String method,
            @Advice.This Object stage,
            @Advice.FieldValue("request") Object request,
            @Advice.FieldValue("lastException") Object lastException,
            @Advice.FieldValue("lastResponse") Object lastResponse) {
        int site = method.endsWith("Async") ? AwsSdkInstrumentation.REFRESH_ASYNC : AwsSdkInstrumentation.REFRESH;
        return Hooks.enter(type, site, stage, new Object[] {request, lastException, lastResponse});
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(
            @Advice.Enter CallOutcome outcome,
            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object decision) {
        if (outcome != null) {
            decision = outcome.response();
        }
    }
}
