package dev.sluice.instrumentation.langchain4j;

import dev.sluice.bootstrap.RetryLayers;
import net.bytebuddy.asm.Advice;

/**
 * {@code RetryPolicy.sleep(int)}, the backoff before a retry: when the failed attempt went through
 * Sluice, ends the loop with that failure instead, as the loop itself does when its retries are
 * spent. Only runtime exceptions are taken over (the models map every failure to one); a checked
 * one, which the loop would wrap in its own exception type, keeps the loop's behaviour.
 */
public final class SleepAdvice {

    private SleepAdvice() {}

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static Exception enter() {
        return RetryLayers.takeDeclinedFailure(LangChain4jInstrumentation.LAYER);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Enter Exception declined, @Advice.Thrown(readOnly = false) Throwable thrown) {
        if (declined != null) {
            thrown = declined;
        }
    }
}
