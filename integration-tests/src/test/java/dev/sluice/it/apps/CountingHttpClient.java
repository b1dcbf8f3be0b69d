package dev.sluice.it.apps;

import com.openai.core.RequestOptions;
import com.openai.core.http.HttpClient;
import com.openai.core.http.HttpRequest;
import com.openai.core.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * openai-java's own OkHttp transport with a count of what goes through it: placed beneath the
 * SDK's retry loop, it counts the SDK's attempts, so a test can tell whether the SDK retried.
 */
public final class CountingHttpClient implements HttpClient {

    private final HttpClient transport =
            com.openai.client.okhttp.OkHttpClient.builder().build();
    private final AtomicLong attempts = new AtomicLong();

    /** Attempts so far. */
    public long attempts() {
        return attempts.get();
    }

    /** Starts counting again from 0. */
    public void reset() {
        attempts.set(0);
    }

    @Override
    public HttpResponse execute(HttpRequest request, RequestOptions options) {
        attempts.incrementAndGet();
        return transport.execute(request, options);
    }

    @Override
    public CompletableFuture<HttpResponse> executeAsync(HttpRequest request, RequestOptions options) {
        attempts.incrementAndGet();
        return transport.executeAsync(request, options);
    }

    @Override
    public void close() {
        transport.close();
    }
}
