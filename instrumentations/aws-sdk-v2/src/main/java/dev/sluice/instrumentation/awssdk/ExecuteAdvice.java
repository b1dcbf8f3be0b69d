package dev.sluice.instrumentation.awssdk;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** {@code SdkAsyncHttpClient.execute(request)}: a governed call returns Sluice's future instead. */
public final class ExecuteAdvice {

    private ExecuteAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type, @Advice.This Object client, @Advice.AllArguments Object[] args) {
        return Hooks.enter(type, AwsSdkInstrumentation.EXECUTE, client, args);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(
            @Advice.Enter CallOutcome outcome,
            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object future,
            @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (outcome != null) {
            thrown = outcome.failure();
            future = outcome.response();
        }
    }
}
