package dev.sluice.instrumentation.reactornetty;

import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * A response method of {@code HttpClientFinalizer}: for a governed call the publisher the method
 * would assemble is replaced by Sluice's, of the same type. The method's name tells the hook which
 * of the five it is; its argument (the application's receiver function, if any) is passed along.
 */
public final class ResponseAdvice {

    private ResponseAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static CallOutcome enter(
            @Advice.Origin Class<?> type,
            @Advice.Origin("#m") String method,
            @Advice.This Object finalizer,
            @Advice.AllArguments Object[] args) {
        return Hooks.enter(type, ReactorNettyInstrumentation.RESPONSE, finalizer, new Object[] {
            method, args.length > 0 ? args[0] : null
        });
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(
            @Advice.Enter CallOutcome outcome,
            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object publisher,
            @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (outcome != null) {
            thrown = outcome.failure();
            publisher = outcome.response();
        }
    }
}
