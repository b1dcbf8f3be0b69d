package dev.sluice.instrumentation.hc5;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import dev.sluice.instrumentation.api.Advice;

/** {@code doExecute(target, request, context)}: a governed call replaces the method's result. */
public final class ClassicExecuteAdvice {

    private ClassicExecuteAdvice() {}

    @Advice.OnMethodEnter(skipOnNonNull = true)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type, @Advice.This Object client, @Advice.AllArguments Object[] args) {
        return Hooks.enter(type, ApacheHttpClient5Instrumentation.CLASSIC, client, args);
    }

    @Advice.OnMethodExit(onThrowable = true)
    public static void exit(
            @Advice.Enter CallOutcome outcome,
            @Advice.Return(readOnly = false) Object response,
            @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (outcome != null) {
            thrown = outcome.failure();
            response = outcome.response();
        }
    }
}
