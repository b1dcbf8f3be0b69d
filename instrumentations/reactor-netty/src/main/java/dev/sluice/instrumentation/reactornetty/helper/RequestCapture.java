package dev.sluice.instrumentation.reactornetty.helper;

import dev.sluice.bootstrap.Bridge;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.cookie.ClientCookieDecoder;
import io.netty.handler.codec.http.cookie.ClientCookieEncoder;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.ConnectionObserver;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.client.HttpClientConfig;
import reactor.netty.http.logging.ReactorNettyHttpMessageLogFactory;

/**
 * Reads what a Reactor Netty request will send before it is admitted: the headers and the body.
 *
 * <p>Reactor Netty keeps the body as a function of the live request ({@code send(...)}), run only
 * once a connection is acquired. Sluice must know the body before that (the model, the prompt and
 * {@code max_tokens} make the estimate admission charges), and must not hold a pooled connection
 * while the call waits for a permit. So the function is run once ahead, against a real
 * {@code HttpClientOperations} bound to a detached {@link EmbeddedChannel}: everything it writes
 * (Spring's adapters included, which cast the request to {@code ChannelOperations}) lands in that
 * channel's outbound queue, never on the network. The attempts later run the application's own
 * function again on their real connections, as a Reactor retry would. Non-blocking: the capture
 * is a Mono subscribed on the caller's thread; an embedded channel runs its tasks inline.
 *
 * <p>When the capture cannot be made (a body that never completes, a module system that hides the
 * constructor) the call is still governed, estimated without its body.
 */
final class RequestCapture {

    /** A body that has not completed by then is not waited for: the estimate goes without it. */
    private static final Duration MAX_CAPTURE = Duration.ofSeconds(10);

    /** Larger bodies are not kept for estimation (the attempts still send them). */
    private static final int MAX_BODY_BYTES = 16 << 20;

    private static volatile Field bodyField;
    private static volatile Constructor<?> operations;

    /** Headers and body of one request as the application made it. */
    static final class Captured {
        final Map<String, List<String>> headers;
        /** Null when the body could not be read ahead or there is none. */
        final byte[] body;

        Captured(Map<String, List<String>> headers, byte[] body) {
            this.headers = headers;
            this.body = body;
        }
    }

    private RequestCapture() {}

    /** The request of {@code finalizer}, read ahead; never fails (an unreadable body comes back null). */
    static Mono<Captured> capture(HttpClient finalizer) {
        HttpClientConfig config = finalizer.configuration();
        Map<String, List<String>> headers = new LinkedHashMap<>();
        copy(config.headers(), headers);
        BiFunction<Object, Object, Publisher<Void>> body;
        EmbeddedChannel channel;
        Object ops;
        try {
            body = bodyOf(config);
            if (body == null) {
                return Mono.just(new Captured(headers, null));
            }
            channel = new EmbeddedChannel();
            ops = detachedOperations(channel);
        } catch (Throwable fault) {
            Bridge.hookFault("reactor-netty:capture-setup", fault);
            return Mono.just(new Captured(headers, null));
        }
        Publisher<Void> written;
        try {
            written = body.apply(ops, ops);
        } catch (Throwable fault) {
            channel.finishAndReleaseAll();
            Bridge.hookFault("reactor-netty:capture", fault);
            return Mono.just(new Captured(headers, null));
        }
        return Mono.from(written == null ? Mono.<Void>empty() : written)
                .timeout(MAX_CAPTURE)
                .then(Mono.fromCallable(() -> read(channel, headers)))
                .onErrorResume(fault -> {
                    Bridge.hookFault("reactor-netty:capture", fault);
                    return Mono.just(new Captured(headers, null));
                })
                .doFinally(signal -> channel.finishAndReleaseAll());
    }

    private static Captured read(EmbeddedChannel channel, Map<String, List<String>> headers) {
        channel.runPendingTasks();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        boolean tooLarge = false;
        for (Object message; (message = channel.readOutbound()) != null; ) {
            try {
                if (message instanceof HttpRequest) {
                    copy(((HttpRequest) message).headers(), headers);
                }
                ByteBuf content = message instanceof ByteBufHolder
                        ? ((ByteBufHolder) message).content()
                        : message instanceof ByteBuf ? (ByteBuf) message : null;
                if (content != null && content.isReadable() && !tooLarge) {
                    if (bytes.size() + content.readableBytes() > MAX_BODY_BYTES) {
                        tooLarge = true;
                    } else {
                        byte[] chunk = new byte[content.readableBytes()];
                        content.getBytes(content.readerIndex(), chunk);
                        bytes.write(chunk, 0, chunk.length);
                    }
                }
            } finally {
                ReferenceCountUtil.release(message);
            }
        }
        return new Captured(headers, tooLarge ? null : bytes.toByteArray());
    }

    private static void copy(HttpHeaders from, Map<String, List<String>> to) {
        if (from == null) {
            return;
        }
        for (Iterator<Map.Entry<String, String>> it = from.iteratorAsString(); it.hasNext(); ) {
            Map.Entry<String, String> header = it.next();
            String name = header.getKey();
            String existing = null;
            for (String key : to.keySet()) {
                if (key.equalsIgnoreCase(name)) {
                    existing = key;
                    break;
                }
            }
            List<String> values = existing == null ? null : to.get(existing);
            if (values == null) {
                values = new ArrayList<>(1);
                to.put(name, values);
            }
            if (!values.contains(header.getValue())) {
                values.add(header.getValue());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static BiFunction<Object, Object, Publisher<Void>> bodyOf(HttpClientConfig config) throws Exception {
        Field f = bodyField;
        if (f == null) {
            f = HttpClientConfig.class.getDeclaredField("body");
            f.setAccessible(true);
            bodyField = f;
        }
        return (BiFunction<Object, Object, Publisher<Void>>) f.get(config);
    }

    /** {@code new HttpClientOperations(connection, listener, cookieEncoder, cookieDecoder, logFactory)}, same in 1.1 to 1.3. */
    private static Object detachedOperations(EmbeddedChannel channel) throws Exception {
        Constructor<?> c = operations;
        if (c == null) {
            Class<?> type = Class.forName(
                    "reactor.netty.http.client.HttpClientOperations", false, HttpClient.class.getClassLoader());
            for (Constructor<?> candidate : type.getDeclaredConstructors()) {
                Class<?>[] p = candidate.getParameterTypes();
                if (p.length == 5 && p[0] == Connection.class && p[1] == ConnectionObserver.class) {
                    c = candidate;
                }
            }
            if (c == null) {
                throw new NoSuchMethodException("HttpClientOperations(Connection, ConnectionObserver, ...)");
            }
            c.setAccessible(true);
            operations = c;
        }
        return c.newInstance(
                Connection.from(channel),
                ConnectionObserver.emptyListener(),
                ClientCookieEncoder.STRICT,
                ClientCookieDecoder.STRICT,
                ReactorNettyHttpMessageLogFactory.INSTANCE);
    }
}
