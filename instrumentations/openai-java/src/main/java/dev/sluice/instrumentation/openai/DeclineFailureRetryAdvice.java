package dev.sluice.instrumentation.openai;

import dev.sluice.bootstrap.RetryLayers;
import net.bytebuddy.asm.Advice;

/** {@code RetryingHttpClient.shouldRetry(Throwable)}: never for a failure Sluice ended a governed call with. */
public final class DeclineFailureRetryAdvice {

    private DeclineFailureRetryAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.Argument(0) Throwable failure, @Advice.Return(readOnly = false) boolean retry) {
        if (retry && RetryLayers.declineRetryOf(OpenAiJavaInstrumentation.LAYER, failure)) {
            retry = false;
        }
    }
}
