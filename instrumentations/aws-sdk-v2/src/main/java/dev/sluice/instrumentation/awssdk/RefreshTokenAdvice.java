package dev.sluice.instrumentation.awssdk;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import dev.sluice.instrumentation.api.Advice;

/**
 * {@code RetryableStageHelper.tryRefreshToken(suggestedDelay)} and {@code tryRefreshTokenAsync}:
 * for a failure Sluice decided, "no retry" without asking the SDK's strategy.
 */
public final class RefreshTokenAdvice {

    private RefreshTokenAdvice() {}

    @Advice.OnMethodEnter(skipOnNonNull = true)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type,
            @Advice.MethodName String method,
            @Advice.This Object stage,
            @Advice.FieldValue("request") Object request,
            @Advice.FieldValue("lastException") Object lastException,
            @Advice.FieldValue("lastResponse") Object lastResponse) {
        int site = method.endsWith("Async") ? AwsSdkInstrumentation.REFRESH_ASYNC : AwsSdkInstrumentation.REFRESH;
        return Hooks.enter(type, site, stage, new Object[] {request, lastException, lastResponse});
    }

    @Advice.OnMethodExit
    public static void exit(@Advice.Enter CallOutcome outcome, @Advice.Return(readOnly = false) Object decision) {
        if (outcome != null) {
            decision = outcome.response();
        }
    }
}
