package dev.sluice.instrumentation.okhttp;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** {@code RealCall.execute()}: a governed call replaces the method's result. */
public final class ExecuteAdvice {

    private ExecuteAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type,
            @Advice.This Object call,
            @Advice.FieldValue("client") Object client,
            @Advice.FieldValue("forWebSocket") boolean forWebSocket) {
        return Hooks.enter(type, OkHttpInstrumentation.EXECUTE, call, new Object[] {client, null, forWebSocket});
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
