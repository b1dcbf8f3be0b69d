package dev.sluice.instrumentation.hc5;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.RetryLayers;
import net.bytebuddy.asm.Advice;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * {@code DefaultHttpRequestRetryStrategy.retryRequest(response, execCount, context)} and
 * {@code retryRequest(request, exception, execCount, context)}: no retry of an attempt Sluice
 * sent while Sluice owns retries (counted as declined). The library type appears only in the
 * body: the agent can read this class without HttpClient.
 */
public final class RetryStrategyAdvice {

    private RetryStrategyAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.AllArguments Object[] args, @Advice.Return(readOnly = false) boolean retry) {
        if (retry) {
            Object context = args[args.length - 1];
            boolean governed = Bridge.isDispatching()
                    || (context instanceof HttpContext
                            && ((HttpContext) context).getAttribute(ApacheHttpClient5Instrumentation.GOVERNED_ATTRIBUTE)
                                    != null);
            if (governed && RetryLayers.ownsRetries()) {
                RetryLayers.declined(ApacheHttpClient5Instrumentation.RETRY_LAYER);
                retry = false;
            }
        }
    }
}
