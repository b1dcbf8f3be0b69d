package dev.sluice.instrumentation.reactornetty.helper;

import dev.sluice.bootstrap.BodyObserver;
import dev.sluice.bootstrap.DroppedBodies;
import dev.sluice.bootstrap.TapBuffer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.Connection;
import reactor.netty.NettyInbound;
import reactor.netty.http.client.HttpClientResponse;

/**
 * One answer of a governed call, as the governor sees it (the transport's opaque response object)
 * and as the application's receiver function gets it: the response, and the connection whose
 * inbound is its body.
 *
 * <p>A 2xx answer keeps its live connection; its body reaches the application through
 * {@link #body()}, which reports every chunk, the end, a failure and a cancel to the governor's
 * {@link BodyObserver}. Any other answer has its body read whole first (the governor classifies
 * it) and replayed from memory, like a local answer Sluice built without the network.
 */
final class Answer {

    final HttpClientResponse response;
    /** The live connection; null for a local answer. */
    private final Connection live;

    private final int status;
    /** The whole body, for non-2xx and local answers; null while a live body streams. */
    private volatile byte[] buffered;

    private volatile BodyObserver observer = BodyObserver.IGNORED;
    /** Whether the live body was subscribed (its one subscription belongs to the application, or to a drain). */
    private final AtomicBoolean bodyTaken = new AtomicBoolean();

    Answer(HttpClientResponse response, Connection live) {
        this.response = response;
        this.live = live;
        this.status = response.status().code();
    }

    /** A local answer: built by Sluice, never on the network. */
    static Answer local(HttpClientResponse response, byte[] body) {
        Answer a = new Answer(response, null);
        a.buffered = body == null ? new byte[0] : body;
        return a;
    }

    int status() {
        return status;
    }

    boolean isSuccess() {
        return status >= 200 && status < 300;
    }

    byte[] buffered() {
        return buffered;
    }

    /** A 2xx answer whose body will stream to the application through {@code observer}. */
    Answer observed(BodyObserver bodyObserver) {
        this.observer = bodyObserver == null ? BodyObserver.IGNORED : bodyObserver;
        return this;
    }

    /** A non-2xx answer with its body read whole (non-blocking: on the connection's event loop). */
    Mono<Answer> readWhole() {
        bodyTaken.set(true);
        return live.inbound()
                .receive()
                .aggregate()
                .asByteArray()
                .defaultIfEmpty(new byte[0])
                .map(bytes -> {
                    buffered = bytes;
                    return this;
                });
    }

    /** The body as the application reads it: observed when live, replayed when buffered. */
    ByteBufFlux body() {
        byte[] bytes = buffered;
        if (bytes != null || live == null) {
            byte[] all = bytes == null ? new byte[0] : bytes;
            return ByteBufFlux.fromInbound(
                    Mono.fromSupplier(() -> Unpooled.wrappedBuffer(all)), ByteBufAllocator.DEFAULT);
        }
        BodyObserver o = observer;
        TapBuffer scratch = new TapBuffer();
        Flux<ByteBuf> observed = live.inbound()
                .receive()
                .doOnSubscribe(s -> bodyTaken.set(true))
                .doOnNext(buf -> {
                    int n = buf.readableBytes();
                    if (n == 0) {
                        return;
                    }
                    if (buf.hasArray()) {
                        byte[] array = buf.array();
                        int at = buf.arrayOffset() + buf.readerIndex();
                        safely(() -> o.onBytes(array, at, n));
                        return;
                    }
                    byte[] copy = scratch.room(n);
                    buf.getBytes(buf.readerIndex(), copy, 0, n);
                    safely(() -> o.onBytes(copy, 0, n));
                })
                .doOnComplete(() -> safely(o::onEnd))
                .doOnError(e -> safely(() -> o.onFailure(e)))
                .doOnCancel(() -> safely(o::onClose));
        return ByteBufFlux.fromInbound(observed, live.outbound().alloc());
    }

    /**
     * Reads what the application left unread (its receiver returned without consuming the body),
     * through the observer, so usage is counted and the connection goes back to its pool.
     */
    void drainIfUnread() {
        if (live != null && buffered == null && bodyTaken.compareAndSet(false, true)) {
            Flux<ByteBuf> rest = body();
            rest.subscribe(b -> {}, e -> {});
        } else if (live == null || buffered != null) {
            safely(observer::onClose);
        }
    }

    /**
     * Releases an answer nobody will read (a caller that left as it came). A live body is not
     * read on: its connection is closed, as Reactor Netty does when a receiver cancels, so a long
     * stream stops; a buffered one has nothing left to release.
     */
    void discard() {
        if (live != null && buffered == null && bodyTaken.compareAndSet(false, true)) {
            try {
                live.dispose();
            } catch (Throwable ignored) {
                // already gone
            }
        }
        safely(observer::onClose);
    }

    /**
     * The connection handed to a {@code responseConnection} receiver: the live one (or a detached
     * one for a local answer) whose {@code inbound()} reads {@link #body()}. While the application
     * holds neither it nor its inbound, a live body it never read is drained for it
     * ({@link DroppedBodies}).
     */
    Connection connectionForCaller() {
        Connection base = live != null ? live : detached();
        ClassLoader loader = Answer.class.getClassLoader();
        Connection[] self = new Connection[1];
        // Only the application may hold the views: an answer can stay reachable from its live
        // channel (through the attempt's subscriber chain) and must not keep them from being collected.
        NettyInbound inbound = (NettyInbound)
                Proxy.newProxyInstance(loader, new Class<?>[] {NettyInbound.class}, new InboundView(this, base, self));
        if (live != null && buffered == null) {
            DroppedBodies.watch(inbound, new DropRelease(live, observer, bodyTaken));
        }
        Connection view = (Connection)
                Proxy.newProxyInstance(loader, new Class<?>[] {Connection.class}, new ConnectionView(base, inbound));
        self[0] = view;
        return view;
    }

    /**
     * The connection of a local answer: a closed embedded channel, so a receiver that waits for the
     * connection's end ({@code onTerminate()}, as Spring's connector does) sees it at once.
     */
    private static Connection detached() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.close();
        return Connection.from(channel);
    }

    /** Gives back a live body the application dropped unread. Holds nothing that references the view. */
    private static final class DropRelease implements Runnable {
        private final Connection live;
        private final BodyObserver observer;
        private final AtomicBoolean bodyTaken;

        DropRelease(Connection live, BodyObserver observer, AtomicBoolean bodyTaken) {
            this.live = live;
            this.observer = observer;
            this.bodyTaken = bodyTaken;
        }

        @Override
        public void run() {
            if (!bodyTaken.compareAndSet(false, true)) {
                return; // the body was subscribed: its flux reports the end, a failure or a cancel
            }
            try {
                live.inbound().receive().subscribe(b -> {}, e -> {});
            } catch (Throwable ignored) {
                // the connection may be gone already
            }
            safely(observer::onClose);
        }
    }

    private static final class InboundView implements InvocationHandler {
        private final Answer answer;
        private final Connection base;
        private final Connection[] connection;

        InboundView(Answer answer, Connection base, Connection[] connection) {
            this.answer = answer;
            this.base = base;
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            int n = method.getParameterCount();
            if ((name.equals("receive") || name.equals("receiveObject")) && n == 0) {
                // the flux keeps this view reachable while it is alive: the drop watch must not fire mid-read
                return ByteBufFlux.fromInbound(answer.body().doFinally(signal -> keepReachable(proxy)), answer.alloc());
            }
            if (name.equals("withConnection") && n == 1) {
                @SuppressWarnings("unchecked")
                java.util.function.Consumer<Object> consumer = (java.util.function.Consumer<Object>) args[0];
                consumer.accept(connection[0] != null ? connection[0] : base);
                return proxy;
            }
            return objectMethod(proxy, method, args, "SluiceInbound[" + base + "]");
        }
    }

    private static final class ConnectionView implements InvocationHandler {
        private final Connection base;
        private final NettyInbound inbound;

        ConnectionView(Connection base, NettyInbound inbound) {
            this.base = base;
            this.inbound = inbound;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getName().equals("inbound") && method.getParameterCount() == 0) {
                return inbound;
            }
            if (method.getDeclaringClass() == Object.class) {
                return objectMethod(proxy, method, args, base.toString());
            }
            try {
                return method.invoke(base, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    private static void keepReachable(Object view) {
        // nothing: referencing the view from the body's operators is the point
    }

    ByteBufAllocator alloc() {
        return live != null ? live.outbound().alloc() : ByteBufAllocator.DEFAULT;
    }

    static Object objectMethod(Object proxy, Method method, Object[] args, String text) {
        switch (method.getName()) {
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            case "toString":
                return text;
            default:
                throw new UnsupportedOperationException(method.getName() + " on a Sluice view");
        }
    }

    static void safely(Runnable report) {
        try {
            report.run();
        } catch (Throwable ignored) {
            // the observer must never break the application's body
        }
    }
}
