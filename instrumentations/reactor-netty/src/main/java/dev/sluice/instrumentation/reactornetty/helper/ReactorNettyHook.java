package dev.sluice.instrumentation.reactornetty.helper;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.CallOutcome;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hook;
import dev.sluice.bootstrap.RetryLayers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.ByteBufMono;
import reactor.netty.Connection;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientConfig;
import reactor.netty.http.client.HttpClientResponse;

/**
 * Entry of the hooked response methods of one copy of Reactor Netty. Compiled against
 * reactor-netty-http 1.1.22, the oldest supported API; uses only what 1.2.x and 1.3.x still have.
 *
 * <p>For a provider URL it returns a publisher of the method's own type whose every subscription
 * is one logical call: the request is read ahead ({@link RequestCapture}), the governor's
 * {@link Governance#executeAsync asynchronous} path admits it (a future: a call that must wait sits
 * in the governor's queue as a waiter, not as a parked thread; cancelling the subscription takes
 * it out of the queue), sends attempts and owns retries, and the answer it hands back is given to
 * the application's receiver function. Core already offered this path (OkHttp's {@code enqueue}
 * and the JDK client's {@code sendAsync} use it), so no executor or thread was added for Reactor:
 * admission never blocks any thread, a Netty event loop least of all.
 */
public final class ReactorNettyHook implements Hook {

    @Override
    public CallOutcome enter(int site, Object self, Object[] args) {
        HttpClient finalizer = (HttpClient) self;
        String method = (String) args[0];
        Object receiver = args[1];
        HttpClientConfig config = finalizer.configuration();
        if (config.websocketClientSpec() != null || config.method() == null) {
            return null;
        }
        String url = urlOf(config);
        if (url == null) {
            return null; // a deferred or relative URI without base: not a provider call Sluice can name
        }
        Governance governance = Bridge.governance();
        if (!governance.governs(url)) {
            return null;
        }
        Shape shape = Shape.of(method, receiver);
        if (shape == null) {
            return null;
        }
        GovernedCall call =
                new GovernedCall(governance, finalizer, config.method().name(), url, shape, receiver);
        return CallOutcome.response(call.publisher());
    }

    /** The absolute URL the request goes to, as Reactor Netty resolves it; null when it cannot be known now. */
    static String urlOf(HttpClientConfig config) {
        String uri = config.uri();
        if (uri == null) {
            return null;
        }
        String base = config.baseUrl();
        if (base != null && uri.startsWith("/")) {
            uri = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + uri;
        }
        String lower = uri.toLowerCase(java.util.Locale.ROOT);
        return lower.startsWith("http://") || lower.startsWith("https://") ? uri : null;
    }

    /** Which response method was called: what its publisher emits and how the receiver is fed. */
    enum Shape {
        RESPONSE,
        RESPONSE_FUNCTION,
        RESPONSE_CONNECTION,
        RESPONSE_SINGLE,
        RESPONSE_CONTENT;

        static Shape of(String method, Object receiver) {
            switch (method) {
                case "response":
                    return receiver == null ? RESPONSE : RESPONSE_FUNCTION;
                case "responseConnection":
                    return receiver == null ? null : RESPONSE_CONNECTION;
                case "responseSingle":
                    return receiver == null ? null : RESPONSE_SINGLE;
                case "responseContent":
                    return RESPONSE_CONTENT;
                default:
                    return null;
            }
        }
    }

    /** The publisher that replaces one response method's: each subscription runs one governed call. */
    static final class GovernedCall {
        private final Governance governance;
        private final HttpClient finalizer;
        private final String method;
        private final String url;
        private final Shape shape;
        private final Object receiver;

        GovernedCall(
                Governance governance, HttpClient finalizer, String method, String url, Shape shape, Object receiver) {
            this.governance = governance;
            this.finalizer = finalizer;
            this.method = method;
            this.url = url;
            this.shape = shape;
            this.receiver = receiver;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        Object publisher() {
            Mono<Answer> answer = exchange();
            switch (shape) {
                case RESPONSE:
                    return answer.map(a -> {
                        a.drainIfUnread(); // as Reactor Netty's response(): the body is not the caller's
                        return a.response;
                    });
                case RESPONSE_FUNCTION: {
                    BiFunction<HttpClientResponse, ByteBufFlux, Publisher<Object>> f =
                            (BiFunction<HttpClientResponse, ByteBufFlux, Publisher<Object>>) receiver;
                    return answer.flatMapMany(
                            a -> Flux.from(f.apply(a.response, a.body())).doFinally(s -> a.drainIfUnread()));
                }
                case RESPONSE_CONNECTION: {
                    BiFunction<HttpClientResponse, Connection, Publisher<Object>> f =
                            (BiFunction<HttpClientResponse, Connection, Publisher<Object>>) receiver;
                    return answer.flatMapMany(a -> Flux.from(f.apply(a.response, a.connectionForCaller())));
                }
                case RESPONSE_SINGLE: {
                    BiFunction<HttpClientResponse, ByteBufMono, Mono<Object>> f =
                            (BiFunction<HttpClientResponse, ByteBufMono, Mono<Object>>) receiver;
                    return answer.flatMap(
                            a -> f.apply(a.response, a.body().aggregate()).doFinally(s -> a.drainIfUnread()));
                }
                default: {
                    Object option = finalizer.configuration().options().get(ChannelOption.ALLOCATOR);
                    ByteBufAllocator alloc =
                            option instanceof ByteBufAllocator ? (ByteBufAllocator) option : ByteBufAllocator.DEFAULT;
                    Flux<ByteBuf> content = answer.flatMapMany(a -> (Flux) a.body());
                    return ByteBufFlux.fromInbound(content, alloc);
                }
            }
        }

        /** One logical call, on subscription: read the request, then let the governor run it. */
        private Mono<Answer> exchange() {
            return Mono.deferContextual(context -> {
                if (RetryLayers.ownsRetries()) {
                    // Sluice decides this call's retries: a retry loop on the subscribing thread that
                    // blocks on the result (Spring's RestClient over ReactorClientHttpRequestFactory,
                    // inside Spring AI's RetryTemplate) must not retry it. Counted here, on that
                    // thread: admission and the attempts run later, on other threads.
                    RetryLayers.governedOnThisThread();
                }
                ReactorNettyTransport transport = new ReactorNettyTransport(finalizer, method, url);
                transport.context(context);
                return RequestCapture.capture(finalizer).flatMap(request -> {
                    transport.captured(request);
                    return governed(transport);
                });
            });
        }

        private Mono<Answer> governed(ReactorNettyTransport transport) {
            return Mono.create(sink -> {
                CompletableFuture<Object> outcome;
                try {
                    outcome = governance.executeAsync(transport);
                    if (outcome == null) {
                        throw new IllegalStateException("the governance returned no future");
                    }
                } catch (Throwable fault) {
                    Bridge.hookFault("reactor-netty:executeAsync", fault);
                    outcome = transport.attemptsSent() == 0
                            ? transport.sendAsync(null) // nothing left the JVM yet: send it once, ungoverned
                            : failed(new IOException(
                                    "Sluice failed after the request was sent; not sending it again", fault));
                }
                CompletableFuture<Object> running = outcome;
                // a cancelled subscription: no further attempt, the admission waiter leaves its
                // queue, an attempt in flight is aborted, and its permit is given back
                sink.onCancel(() -> {
                    transport.cancel();
                    running.cancel(true);
                });
                running.whenComplete((response, failure) -> {
                    if (running.isCancelled()) {
                        return; // the subscriber left: nobody to tell
                    }
                    if (failure == null && transport.isCancelled() && response instanceof Answer) {
                        ((Answer) response).discard(); // it came as the subscriber left
                        return;
                    }
                    if (failure != null) {
                        sink.error(unwrap(failure));
                        return;
                    }
                    if (!(response instanceof Answer)) {
                        Bridge.hookFault(
                                "reactor-netty:outcome",
                                new IllegalStateException("the governance returned "
                                        + (response == null
                                                ? "null"
                                                : response.getClass().getName())));
                        sink.error(new IOException("Sluice could not complete the call"));
                        return;
                    }
                    sink.success((Answer) response);
                });
            });
        }
    }

    static Throwable unwrap(Throwable failure) {
        while (failure instanceof CompletionException && failure.getCause() != null) {
            failure = failure.getCause();
        }
        return failure;
    }

    private static CompletableFuture<Object> failed(Throwable failure) {
        CompletableFuture<Object> future = new CompletableFuture<>();
        future.completeExceptionally(failure);
        return future;
    }
}
