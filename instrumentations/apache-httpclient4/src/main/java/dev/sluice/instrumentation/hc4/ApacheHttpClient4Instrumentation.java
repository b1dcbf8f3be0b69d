package dev.sluice.instrumentation.hc4;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Arrays;
import java.util.List;

/**
 * Governs Apache HttpClient 4.5 (classic; the AWS SDK's default sync client and many enterprise
 * applications).
 *
 * <p>Hooked: {@code doExecute(HttpHost, HttpRequest, HttpContext)} of {@code InternalHttpClient}
 * (what {@code HttpClients.createDefault()} and {@code HttpClientBuilder.build()} return),
 * {@code MinimalHttpClient} and the deprecated {@code AbstractHttpClient}
 * ({@code DefaultHttpClient}, ...). Every public {@code execute} overload of
 * {@code CloseableHttpClient}, with or without a {@code ResponseHandler}, calls {@code doExecute}
 * exactly once (4.5.14 sources and javap).
 *
 * <p>HttpClient 4's retry layers stand aside for governed attempts: the
 * {@code retryRequest} decisions of {@code DefaultHttpRequestRetryHandler} (and its subclass
 * {@code StandardHttpRequestRetryHandler}; I/O errors) and of
 * {@code DefaultServiceUnavailableRetryStrategy} (503) answer false for an attempt Sluice sent
 * (context attribute {@link #GOVERNED_ATTRIBUTE}, or Sluice dispatching on this thread).
 */
public final class ApacheHttpClient4Instrumentation extends InstrumentationModule {

    static final int CLASSIC = 1;

    /** The layer's name in Sluice's retry-layer counters. */
    public static final String RETRY_LAYER = "apache-httpclient4-retry-handler";

    /** Context attribute marking an attempt Sluice sends (its value is irrelevant). */
    public static final String GOVERNED_ATTRIBUTE = "dev.sluice.governed";

    @Override
    public String name() {
        return "apache-httpclient4";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Arrays.asList(
                "org.apache.http.impl.client.InternalHttpClient",
                "org.apache.http.impl.client.MinimalHttpClient",
                "org.apache.http.impl.client.AbstractHttpClient",
                "org.apache.http.impl.client.DefaultHttpRequestRetryHandler",
                "org.apache.http.impl.client.DefaultServiceUnavailableRetryStrategy");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(named("doExecute").and(takesArguments(3)), ClassicExecuteAdvice.class.getName());
        sink.advise(
                named("retryRequest").and(returns(boolean.class)).and(takesArguments(3)),
                RetryHandlerAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.hc4.helper.";
    }

    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.hc4.helper.Hc4Hook";
    }

    /** Every exchange of this client to a provider goes through the hook. */
    @Override
    public java.util.List<String> governedClients() {
        return java.util.Collections.singletonList("apache-httpclient-4");
    }
}
