package dev.sluice.instrumentation.connections;

import dev.sluice.bootstrap.Connections;
import net.bytebuddy.asm.Advice;

/** {@code connect(SocketAddress...)}: tells the bridge where the JVM is connecting to. */
public final class ConnectAdvice {

    private ConnectAdvice() {}

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.Argument(0) Object endpoint) {
        Connections.opening(endpoint);
    }
}
