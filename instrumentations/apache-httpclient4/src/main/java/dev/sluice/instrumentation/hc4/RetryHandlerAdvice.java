package dev.sluice.instrumentation.hc4;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.RetryLayers;
import net.bytebuddy.asm.Advice;
import org.apache.http.protocol.HttpContext;

/**
 * {@code DefaultHttpRequestRetryHandler.retryRequest(exception, executionCount, context)} and
 * {@code DefaultServiceUnavailableRetryStrategy.retryRequest(response, executionCount, context)}:
 * no retry of an attempt Sluice sent while Sluice owns retries (counted as declined). The library
 * type appears only in the body: the agent can read this class without HttpClient.
 */
public final class RetryHandlerAdvice {

    private RetryHandlerAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.Argument(2) Object context, @Advice.Return(readOnly = false) boolean retry) {
        if (retry) {
            boolean governed = Bridge.isDispatching()
                    || (context instanceof HttpContext
                            && ((HttpContext) context).getAttribute(ApacheHttpClient4Instrumentation.GOVERNED_ATTRIBUTE)
                                    != null);
            if (governed && RetryLayers.ownsRetries()) {
                RetryLayers.declined(ApacheHttpClient4Instrumentation.RETRY_LAYER);
                retry = false;
            }
        }
    }
}
