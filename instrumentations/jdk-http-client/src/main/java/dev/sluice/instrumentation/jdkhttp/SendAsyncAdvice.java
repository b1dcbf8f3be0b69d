package dev.sluice.instrumentation.jdkhttp;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** {@code HttpClient.sendAsync(request, handler[, pushPromiseHandler])}: the future of a governed call replaces the method's. */
public final class SendAsyncAdvice {

    private SendAsyncAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type, @Advice.This Object client, @Advice.AllArguments Object[] args) {
        return Hooks.enter(type, JdkHttpClientInstrumentation.SEND_ASYNC, client, args);
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
