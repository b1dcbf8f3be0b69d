package dev.sluice.instrumentation.azurecore.helper;

import com.azure.core.http.HttpResponse;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hook;
import dev.sluice.bootstrap.RetryLayers;

/**
 * The library side of azure-core's retry decisions: a non-null answer means "no retry", for an
 * answer Sluice handed back ({@code x-should-retry: false}, which every refusal and failure Sluice
 * hands back carries) or a failure Sluice ended a governed call with, while Sluice owns retries.
 * Each declined retry is counted under {@value #LAYER}.
 */
public final class RetryPolicyHook implements Hook {

    static final String LAYER = "azure-core-retry-policy";

    private static final int RESPONSE = 1;
    private static final int EXCEPTION = 2;

    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        if (args == null || args.length < 2) {
            return null;
        }
        if (site == RESPONSE && args[1] instanceof HttpResponse) {
            String says = ((HttpResponse) args[1]).getHeaderValue("x-should-retry");
            if ("false".equalsIgnoreCase(says) && RetryLayers.ownsRetries()) {
                RetryLayers.declined(LAYER);
                return CallOutcome.response(Boolean.FALSE);
            }
            return null;
        }
        if (site == EXCEPTION && args[1] instanceof Throwable) {
            return RetryLayers.declineRetryOf(LAYER, (Throwable) args[1]) ? CallOutcome.response(Boolean.FALSE) : null;
        }
        return null;
    }
}
