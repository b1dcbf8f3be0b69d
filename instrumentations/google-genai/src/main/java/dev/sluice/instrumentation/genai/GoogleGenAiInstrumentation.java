package dev.sluice.instrumentation.genai;

import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Collections;
import java.util.List;

/**
 * Neutralises google-genai's {@code com.google.genai.RetryInterceptor} (2.x, javap of 2.0.0), an
 * OkHttp application interceptor every {@code Client} gets: up to 5 attempts on 408, 429, 500,
 * 502, 503, 504 and IOException, with exponential backoff that ignores the provider's wait hint and
 * sleeps on the calling (or dispatcher) thread.
 *
 * <p>It sits inside each of Sluice's attempts (Sluice governs the OkHttp call; every attempt runs
 * the client's interceptor chain), so left alone it would turn each attempt into five. While
 * Sluice owns retries, {@code intercept(Chain)} of a governed request proceeds exactly once and
 * returns what it got; its retry decisions are only counted. The hook is on the execution path,
 * so clients built before a late attach are covered too.
 */
public final class GoogleGenAiInstrumentation extends InstrumentationModule {

    static final int INTERCEPT = 1;

    @Override
    public String name() {
        return "google-genai";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Collections.singletonList("com.google.genai.RetryInterceptor");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(named("intercept").and(isPublic()).and(takesArguments(1)), InterceptAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.genai.helper.";
    }

    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.genai.helper.RetryInterceptorHook";
    }
}
