package dev.sluice.instrumentation.okhttp;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

/** {@code RealCall.enqueue(Callback)}: a governed call is delivered by Sluice instead. */
public final class EnqueueAdvice {

    private EnqueueAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type,
            @Advice.This Object call,
            @Advice.FieldValue("client") Object client,
            @Advice.Argument(0) Object callback,
            @Advice.FieldValue("forWebSocket") boolean forWebSocket) {
        return Hooks.enter(type, OkHttpInstrumentation.ENQUEUE, call, new Object[] {client, callback, forWebSocket});
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter CallOutcome outcome, @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (outcome != null) {
            thrown = outcome.failure();
        }
    }
}
