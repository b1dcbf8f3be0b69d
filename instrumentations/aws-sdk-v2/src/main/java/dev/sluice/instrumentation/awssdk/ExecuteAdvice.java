package dev.sluice.instrumentation.awssdk;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import dev.sluice.instrumentation.api.Advice;

/** {@code SdkAsyncHttpClient.execute(request)}: a governed call returns Sluice's future instead. */
public final class ExecuteAdvice {

    private ExecuteAdvice() {}

    @Advice.OnMethodEnter(skipOnNonNull = true)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type, @Advice.This Object client, @Advice.AllArguments Object[] args) {
        return Hooks.enter(type, AwsSdkInstrumentation.EXECUTE, client, args);
    }

    @Advice.OnMethodExit(onThrowable = true)
    public static void exit(
            @Advice.Enter CallOutcome outcome,
            @Advice.Return(readOnly = false) Object future,
            @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (outcome != null) {
            thrown = outcome.failure();
            future = outcome.response();
        }
    }
}
