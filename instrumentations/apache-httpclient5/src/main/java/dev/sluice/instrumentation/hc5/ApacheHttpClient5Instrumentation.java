package dev.sluice.instrumentation.hc5;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Arrays;
import java.util.List;

/**
 * Governs Apache HttpClient 5 (5.2 to 5.6), classic and asynchronous APIs.
 *
 * <p>Hooked: {@code doExecute(HttpHost, ClassicHttpRequest, HttpContext)} of
 * {@code InternalHttpClient} (what {@code HttpClients.createDefault()}, {@code custom().build()},
 * {@code createSystem()} return) and {@code MinimalHttpClient}. Every public {@code execute}
 * overload of {@code CloseableHttpClient} (those returning a response and those taking an
 * {@code HttpClientResponseHandler}) calls {@code doExecute} exactly once and nothing else does
 * (checked in the 5.2.3, 5.4.1 and 5.5.1 sources and with javap): the narrowest point that sees
 * every call once. With a response handler, the handler reads the body Sluice handed back and
 * {@code execute} then consumes it, which settles the reservation.
 *
 * <p>Asynchronous: {@code doExecute(HttpHost, AsyncRequestProducer, AsyncResponseConsumer,
 * HandlerFactory, HttpContext, FutureCallback)} of {@code InternalAbstractHttpAsyncClient} (behind
 * {@code HttpAsyncClients.createDefault()}, {@code custom()}, {@code createHttp2Default()}) and
 * {@code AbstractMinimalHttpAsyncClientBase}: every public {@code execute} of
 * {@code CloseableHttpAsyncClient} (the {@code SimpleHttpRequest} ones included) ends there, once.
 * The call is admitted before anything reaches the client (no connection, no reactor thread held
 * while it waits); the application's future and consumer get the final answer.
 *
 * <p>HttpClient's own retry layer, {@code DefaultHttpRequestRetryStrategy} (429 and 503 once,
 * honouring {@code Retry-After}, and idempotent requests after an I/O error), stands aside for
 * governed attempts: its two {@code retryRequest} decisions answer false when the attempt is one
 * of Sluice's, told by the exchange's context attribute {@link #GOVERNED_ATTRIBUTE} (set by the
 * helper for each attempt, survives any thread hop) or by Sluice dispatching on this thread (an
 * exchange governed above the client, by another hook).
 */
public final class ApacheHttpClient5Instrumentation extends InstrumentationModule {

    static final int CLASSIC = 1;
    static final int ASYNC = 2;

    /** The layer's name in Sluice's retry-layer counters. */
    public static final String RETRY_LAYER = "apache-httpclient5-retry-strategy";

    /** Context attribute marking an attempt Sluice sends (its value is irrelevant). */
    public static final String GOVERNED_ATTRIBUTE = "dev.sluice.governed";

    @Override
    public String name() {
        return "apache-httpclient5";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Arrays.asList(
                "org.apache.hc.client5.http.impl.classic.InternalHttpClient",
                "org.apache.hc.client5.http.impl.classic.MinimalHttpClient",
                "org.apache.hc.client5.http.impl.async.InternalAbstractHttpAsyncClient",
                "org.apache.hc.client5.http.impl.async.AbstractMinimalHttpAsyncClientBase",
                "org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(named("doExecute").and(takesArguments(3)), ClassicExecuteAdvice.class.getName());
        sink.advise(named("doExecute").and(takesArguments(6)), AsyncExecuteAdvice.class.getName());
        sink.advise(
                named("retryRequest")
                        .and(returns(boolean.class))
                        .and(takesArguments(3).or(takesArguments(4))),
                RetryStrategyAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.hc5.helper.";
    }

    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.hc5.helper.Hc5Hook";
    }

    /** Every classic and async exchange of this client to a provider goes through the hook. */
    @Override
    public java.util.List<String> governedClients() {
        return java.util.Collections.singletonList("apache-httpclient-5");
    }
}
