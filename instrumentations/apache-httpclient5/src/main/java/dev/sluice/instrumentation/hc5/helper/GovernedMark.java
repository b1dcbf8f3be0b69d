package dev.sluice.instrumentation.hc5.helper;

import dev.sluice.bootstrap.RetryLayers;
import org.apache.hc.core5.http.protocol.HttpContext;

/**
 * The mark on an exchange's context that tells HttpClient 5's retry strategy an attempt is
 * Sluice's (its advice then stands aside, since Sluice's loop decides): set on each attempt while
 * Sluice owns retries, removed otherwise and when the call is over. Alike for the classic and the
 * async client.
 */
final class GovernedMark {

    /** The layer's name in Sluice's counters (ApacheHttpClient5Instrumentation.RETRY_LAYER). */
    static final String RETRY_LAYER = "apache-httpclient5-retry-strategy";
    /** The attribute the retry strategy's advice looks for (ApacheHttpClient5Instrumentation.GOVERNED_ATTRIBUTE). */
    static final String ATTRIBUTE = "dev.sluice.governed";

    private GovernedMark() {}

    /** Before an attempt: marked (and counted as a pass of the layer) while Sluice owns retries, else unmarked. */
    static void beforeAttempt(HttpContext context) {
        if (RetryLayers.ownsRetries()) {
            context.setAttribute(ATTRIBUTE, Boolean.TRUE);
            RetryLayers.passed(RETRY_LAYER);
        } else {
            context.removeAttribute(ATTRIBUTE);
        }
    }

    /** The call is over: the application's own context no longer marks attempts as Sluice's. */
    static void callOver(HttpContext applicationContext) {
        try {
            applicationContext.removeAttribute(ATTRIBUTE);
        } catch (RuntimeException ignored) {
            // an application context that refuses: the mark only ever stands a retry aside
        }
    }
}
