package dev.sluice.instrumentation.reactornetty;

import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Collections;
import java.util.List;

/**
 * Governs Reactor Netty's {@code HttpClient} (reactor-netty-http 1.1.x, 1.2.x and 1.3.x), and so
 * Spring's {@code WebClient} ({@code ReactorClientHttpConnector}), {@code RestClient}
 * ({@code ReactorClientHttpRequestFactory}) and any SDK whose transport is Reactor Netty.
 *
 * <p>Hooked: the five response methods of {@code reactor.netty.http.client.HttpClientFinalizer},
 * the object every {@code client.get()/post()/request(m).uri(..).send(..)} chain ends on (javap of
 * 1.1.22, 1.2.16 and 1.3.7: same class, same methods): {@code response()},
 * {@code response(BiFunction)}, {@code responseConnection(BiFunction)}, {@code responseContent()}
 * and {@code responseSingle(BiFunction)}. They only assemble a publisher; nothing is sent until it
 * is subscribed. For a provider URL the hook returns another publisher of the same type instead,
 * whose subscription captures the request (its body function run once against a detached
 * connection), asks for admission asynchronously, and only then subscribes the real exchange, so
 * no thread, and no Netty event loop above all, ever waits for a permit. Hooking the finalizer
 * rather than {@code WebClient.Builder.build()} covers the raw client too, and every client built
 * before a late attach.
 */
public final class ReactorNettyInstrumentation extends InstrumentationModule {

    static final int RESPONSE = 1;

    @Override
    public String name() {
        return "reactor-netty";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Collections.singletonList("reactor.netty.http.client.HttpClientFinalizer");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(
                isPublic()
                        .and(named("response")
                                .and(takesArguments(0).or(takesArguments(1)))
                                .or(named("responseConnection").and(takesArguments(1)))
                                .or(named("responseSingle").and(takesArguments(1)))
                                .or(named("responseContent").and(takesArguments(0)))),
                ResponseAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.reactornetty.helper.";
    }

    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.reactornetty.helper.ReactorNettyHook";
    }

    /** Every exchange of Reactor Netty's HttpClient to a provider goes through the hook; it connects through Netty, natively on Linux. */
    @Override
    public java.util.List<String> governedClients() {
        return java.util.Arrays.asList("reactor-netty", "netty");
    }
}
