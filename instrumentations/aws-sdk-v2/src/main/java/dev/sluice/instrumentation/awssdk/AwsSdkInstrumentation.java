package dev.sluice.instrumentation.awssdk;

import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Arrays;
import java.util.List;

/**
 * Governs the AWS SDK for Java v2 (checked on 2.59): Amazon Bedrock Runtime above all, whatever
 * HTTP client the SDK runs on, and makes the SDK's own retry strategy stand aside for governed
 * calls.
 *
 * <p>Hooked: the HTTP client SPI every SDK client goes through, on each client the SDK ships.
 * Synchronous ({@code SdkHttpClient.prepareRequest(HttpExecuteRequest)}): Apache 4 (the default),
 * Apache 5, URLConnection and CRT. Asynchronous ({@code SdkAsyncHttpClient.execute(AsyncExecuteRequest)}):
 * Netty (the default) and CRT. The SDK signs each request (SigV4) before its HTTP client sees it,
 * so the hook sees the request exactly as it will leave, and changes nothing of it: every attempt
 * is the signed request again, through the same client (only an unsigned {@code X-Sluice-*} header
 * is taken out). A custom {@code SdkHttpClient} of the application's own is not hooked; one that
 * wraps an SDK client is, through the client it wraps.
 *
 * <p>The retry layer: {@code RetryableStageHelper} of sdk-core, through which every retry
 * decision of the SDK goes, sync and async, for every strategy (standard, adaptive with its
 * client-side rate limiter, legacy, a {@code RetryPolicy}): see the helper's {@code RetryStage}.
 */
public final class AwsSdkInstrumentation extends InstrumentationModule {

    static final int PREPARE = 1;
    static final int EXECUTE = 2;
    static final int ACQUIRE = 3;
    static final int ACQUIRE_ASYNC = 4;
    static final int REFRESH = 5;
    static final int REFRESH_ASYNC = 6;

    @Override
    public String name() {
        return "aws-sdk-v2";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Arrays.asList(
                "software.amazon.awssdk.http.apache.ApacheHttpClient",
                "software.amazon.awssdk.http.apache5.Apache5HttpClient",
                "software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient",
                "software.amazon.awssdk.http.crt.AwsCrtHttpClient",
                "software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient",
                "software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient",
                "software.amazon.awssdk.core.internal.http.pipeline.stages.utils.RetryableStageHelper");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(
                named("prepareRequest")
                        .and(isPublic())
                        .and(takesArguments(1))
                        .and(takesArgument(0, named("software.amazon.awssdk.http.HttpExecuteRequest"))),
                PrepareRequestAdvice.class.getName());
        sink.advise(
                named("execute")
                        .and(isPublic())
                        .and(takesArguments(1))
                        .and(takesArgument(0, named("software.amazon.awssdk.http.async.AsyncExecuteRequest"))),
                ExecuteAdvice.class.getName());
        sink.advise(
                named("acquireInitialToken").and(takesArguments(0)).and(returns(named("java.time.Duration"))),
                AcquireTokenAdvice.class.getName());
        sink.advise(
                named("acquireInitialTokenAsync")
                        .and(takesArguments(0))
                        .and(returns(named("java.util.concurrent.CompletableFuture"))),
                AcquireTokenAsyncAdvice.class.getName());
        sink.advise(
                named("tryRefreshToken").or(named("tryRefreshTokenAsync")).and(takesArguments(1)),
                RefreshTokenAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.awssdk.helper.";
    }

    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.awssdk.helper.AwsSdkHook";
    }
}
