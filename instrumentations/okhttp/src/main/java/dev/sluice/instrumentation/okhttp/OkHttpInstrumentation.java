package dev.sluice.instrumentation.okhttp;

import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Arrays;
import java.util.List;

/**
 * Governs OkHttp 3.14, 4.x and 5.x at the execution path of a call.
 *
 * <p>Hooked: {@code execute()}, {@code enqueue(Callback)} and {@code cancel()} of the {@code Call}
 * implementation, {@code okhttp3.RealCall} in 3.x and {@code okhttp3.internal.connection.RealCall}
 * in 4.x and 5.x (javap of 3.14.9, 4.12.0 and okhttp-jvm 5.3.2). Each keeps the client in a field
 * named {@code client} and a {@code forWebSocket} flag, read by the advice; WebSocket calls pass
 * untouched (their upgrade cannot be replayed as a plain call). Hooking the call rather than adding an interceptor
 * in {@code OkHttpClient.Builder} governs clients built before a late attach too, sees each
 * logical call once (an application interceptor that calls {@code proceed()} twice would
 * otherwise look like two calls), and keeps async admission off the dispatcher: the call never
 * takes a dispatcher slot while it waits. Each attempt is a fresh {@code client.newCall(...)}, so
 * the application's interceptors, event listeners and connection pool still apply per attempt.
 */
public final class OkHttpInstrumentation extends InstrumentationModule {

    static final int EXECUTE = 1;
    static final int ENQUEUE = 2;
    static final int CANCEL = 3;

    @Override
    public String name() {
        return "okhttp";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Arrays.asList("okhttp3.RealCall", "okhttp3.internal.connection.RealCall");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(named("execute").and(isPublic()).and(takesArguments(0)), ExecuteAdvice.class.getName());
        sink.advise(named("enqueue").and(isPublic()).and(takesArguments(1)), EnqueueAdvice.class.getName());
        sink.advise(named("cancel").and(isPublic()).and(takesArguments(0)), CancelAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.okhttp.helper.";
    }

    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.okhttp.helper.OkHttpHook";
    }

    /** Every exchange of this client to a provider goes through the hook. */
    @Override
    public List<String> governedClients() {
        return java.util.Collections.singletonList("okhttp");
    }
}
