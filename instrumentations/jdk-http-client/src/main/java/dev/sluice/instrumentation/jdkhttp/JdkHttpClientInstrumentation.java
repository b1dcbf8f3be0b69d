package dev.sluice.instrumentation.jdkhttp;

import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Collections;
import java.util.List;

/**
 * Governs {@code java.net.http.HttpClient}.
 *
 * <p>Hooked class: {@code jdk.internal.net.http.HttpClientFacade}, the object
 * {@code HttpClient.newHttpClient()} and {@code HttpClient.Builder.build()} return on JDK 11 to
 * 25 (checked with javap on 17 and 25). Its three public exchange methods each delegate once to
 * {@code HttpClientImpl}, whose {@code send} re-enters its own {@code sendAsync}: hooking the
 * facade sees every application exchange exactly once, without relying on the re-entrance guard
 * for that. The facade lives in {@code java.net.http} (platform loader): the advice references
 * bootstrap types only, and the agent adds a read edge from that module to the bridge.
 */
public final class JdkHttpClientInstrumentation extends InstrumentationModule {

    static final int SEND = 1;
    static final int SEND_ASYNC = 2;

    @Override
    public String name() {
        return "jdk-http-client";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Collections.singletonList("jdk.internal.net.http.HttpClientFacade");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(named("send").and(isPublic()).and(takesArguments(2)), SendAdvice.class.getName());
        sink.advise(
                named("sendAsync").and(isPublic()).and(takesArguments(2).or(takesArguments(3))),
                SendAsyncAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.jdkhttp.helper.";
    }

    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.jdkhttp.helper.JdkHttpHook";
    }

    /**
     * The JDK hands a body to its own subscribers on the thread that read it, and to any other
     * (the tap) through the client's executor: one more hand-over between threads a call, +9 to
     * +13 us at p99 on a loopback call. With its internal package open to the helpers (so also
     * exported), the tap is one of its own ({@code TrustedTappedSubscriber}), and a request body
     * of {@code ofString} or {@code ofByteArray} is read where the publisher keeps it rather than
     * through a subscription that copies it ({@code InMemoryBodies}).
     */
    @Override
    public List<String> packagesOpenedToHelpers() {
        return Collections.singletonList("jdk.internal.net.http");
    }

    /** Every exchange of this client to a provider goes through the hook. */
    @Override
    public List<String> governedClients() {
        return java.util.Collections.singletonList("jdk-http-client");
    }
}
