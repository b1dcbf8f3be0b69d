package dev.sluice.instrumentation.azurecore;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Collections;
import java.util.List;

/**
 * Makes azure-core's retry layer stand aside for the calls Sluice decided: the {@code RetryPolicy}
 * of every Azure SDK client's HTTP pipeline ({@code azure-ai-openai}, checked on azure-core 1.55):
 * by default {@code ExponentialBackoff}, three retries of 408, 429, 500, 502, 503 and 504 answers
 * and of I/O failures, honouring {@code retry-after}. Its sync and async paths both ask two private
 * static decisions, {@code shouldRetry(RetryStrategy, HttpResponse, int, List)} and
 * {@code shouldRetryException(RetryStrategy, Throwable, int, List)}; they answer false, while
 * Sluice owns retries, for an answer Sluice handed back ({@code x-should-retry: false}) and for a
 * failure Sluice ended a governed call with. The calls themselves are governed by the HTTP client
 * the pipeline runs on (the JDK client, OkHttp, Reactor Netty), inside each of the policy's tries.
 */
public final class AzureCoreInstrumentation extends InstrumentationModule {

    static final int RESPONSE = 1;
    static final int EXCEPTION = 2;

    @Override
    public String name() {
        return "azure-core";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Collections.singletonList("com.azure.core.http.policy.RetryPolicy");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(
                named("shouldRetry")
                        .or(named("shouldRetryException"))
                        .and(takesArguments(4))
                        .and(returns(boolean.class)),
                ShouldRetryAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.azurecore.helper.";
    }

    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.azurecore.helper.RetryPolicyHook";
    }
}
