package dev.sluice.instrumentation.connections;

import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.Arrays;
import java.util.List;

/**
 * Watches the two doors every TCP connection of the JVM goes through, {@code java.net.Socket
 * .connect(SocketAddress, int)} (blocking sockets: {@code HttpURLConnection}, OkHttp, Apache
 * HttpClient classic; {@code SSLSocketImpl} calls it too) and {@code sun.nio.ch.SocketChannelImpl
 * .connect(SocketAddress)} (NIO: the JDK HttpClient, Netty, Apache HttpClient async), so that a
 * provider's calls through a client Sluice does not govern are counted and named
 * ({@link dev.sluice.bootstrap.Connections}) instead of silently bypassing the governor.
 *
 * Netty's native transports (epoll, kqueue) connect in C, so their {@code doConnect} is watched
 * too.
 *
 * <p>The two JDK classes live in {@code java.base}: the advice reaches the bridge only, and the agent
 * lets {@code java.base} read the bridge's module. Already loaded at start, so they are
 * retransformed; the advice adds no member.
 */
public final class ConnectionsInstrumentation extends InstrumentationModule {

    @Override
    public String name() {
        return "connections";
    }

    @Override
    public List<String> hookedTypeNames() {
        return Arrays.asList(
                "java.net.Socket",
                "sun.nio.ch.SocketChannelImpl",
                // Netty's native transports connect in C, past both doors above (Reactor Netty on
                // Linux picks epoll whenever netty-transport-native-epoll is there, as it is by default)
                "io.netty.channel.epoll.AbstractEpollChannel",
                "io.netty.channel.kqueue.AbstractKQueueChannel");
    }

    @Override
    public void declareAdvice(AdviceSink sink) {
        sink.advise(
                named("connect")
                        .and(takesArguments(2))
                        .and(takesArgument(0, named("java.net.SocketAddress")))
                        .and(takesArgument(1, int.class))
                        .and(isDeclaredBy(named("java.net.Socket"))),
                ConnectAdvice.class.getName());
        sink.advise(
                named("connect")
                        .and(takesArguments(1))
                        .and(takesArgument(0, named("java.net.SocketAddress")))
                        .and(isDeclaredBy(named("sun.nio.ch.SocketChannelImpl"))),
                ConnectAdvice.class.getName());
        sink.advise(
                named("doConnect")
                        .and(takesArguments(2))
                        .and(takesArgument(0, named("java.net.SocketAddress")))
                        .and(takesArgument(1, named("java.net.SocketAddress"))),
                ConnectAdvice.class.getName());
    }

    @Override
    public String helperPackage() {
        return "dev.sluice.instrumentation.connections.helper.";
    }

    /** None: the advice calls the bridge only. */
    @Override
    public String hookClassName() {
        return "dev.sluice.instrumentation.connections.helper.None";
    }
}
