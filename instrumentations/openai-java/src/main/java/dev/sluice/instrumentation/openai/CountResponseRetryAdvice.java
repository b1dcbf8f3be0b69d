package dev.sluice.instrumentation.openai;

import com.openai.core.http.HttpResponse;
import dev.sluice.bootstrap.RetryLayers;
import net.bytebuddy.asm.Advice;

/**
 * {@code RetryingHttpClient.shouldRetry(HttpResponse)}: counts the answers the SDK's own rule
 * (408, 409, 429, 5xx) would have retried and Sluice's {@code x-should-retry: false} declined.
 * The SDK type appears only in the body, never in the signature: the agent can read this class
 * reflectively without the SDK.
 */
public final class CountResponseRetryAdvice {

    private CountResponseRetryAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.Argument(0) Object response, @Advice.Return boolean retry) {
        if (!retry) {
            RetryLayers.declinedStatusRetry(OpenAiJavaInstrumentation.LAYER, ((HttpResponse) response).statusCode());
        }
    }
}
