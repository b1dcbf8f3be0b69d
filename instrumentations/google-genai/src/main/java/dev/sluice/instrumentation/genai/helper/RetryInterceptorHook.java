package dev.sluice.instrumentation.genai.helper;

import com.google.genai.types.HttpRetryOptions;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Hook;
import dev.sluice.bootstrap.RetryLayers;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The library side of the {@code RetryInterceptor} hook: when Sluice owns retries and governs the
 * request, proceeds once and counts whether the interceptor would have retried what came back
 * (by its own options: the request's {@code HttpRetryOptions} tag, else the client's).
 */
public final class RetryInterceptorHook implements Hook {

    static final String LAYER = "google-genai";

    /** The interceptor's default retried statuses (javap of 2.0.0, {@code RETRY_HTTP_STATUS_CODES}). */
    private static final List<Integer> DEFAULT_STATUSES = Arrays.asList(408, 429, 500, 502, 503, 504);

    private static final int DEFAULT_ATTEMPTS = 5;

    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        Interceptor.Chain chain = (Interceptor.Chain) args[0];
        Request request = chain.request();
        HttpRetryOptions options = request.tag(HttpRetryOptions.class);
        if (options == null) {
            options = (HttpRetryOptions) args[1];
        }
        if (options == null
                || Math.max(1, options.attempts().orElse(DEFAULT_ATTEMPTS)) <= 1
                || !RetryLayers.ownsRetries()
                || !Bridge.governance().governs(request.url().toString())) {
            return null; // nothing to neutralise, or not Sluice's call: the interceptor runs as written
        }
        List<Integer> retried = options.httpStatusCodes().orElse(DEFAULT_STATUSES);
        RetryLayers.passed(LAYER);
        Response response;
        try {
            response = chain.proceed(request);
        } catch (Throwable failure) {
            // whatever proceed threw is the call's outcome: falling back to the interceptor would send it again
            if (failure instanceof IOException) {
                RetryLayers.declined(LAYER);
            }
            return CallOutcome.failure(failure);
        }
        if (!response.isSuccessful() && retried.contains(response.code())) {
            RetryLayers.declined(LAYER);
        }
        return CallOutcome.response(response);
    }
}
