package dev.sluice.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectionsTest {

    /** Recognises one provider endpoint and records what it was told to log. */
    private static final class Recording implements Governance {
        final List<String> logged = new ArrayList<>();
        int lookups;

        @Override
        public boolean governs(String url) {
            return false;
        }

        @Override
        public CallOutcome execute(HttpTransport transport) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Object> executeAsync(HttpTransport transport) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean recognisesEndpoint(String host, int port) {
            lookups++;
            return host.equals("llm.test") && (port == 443 || port == Connections.ANY_PORT);
        }

        @Override
        public void onUngovernedConnection(String host, String client) {
            logged.add(host + " " + client);
        }
    }

    @AfterEach
    void passThrough() {
        Bridge.install(Governance.PASS_THROUGH);
    }

    private static long count(String key) {
        Long n = Connections.ungoverned().get(key);
        return n == null ? 0 : n;
    }

    @Test
    void connectionsToAProviderFromAnUngovernedPathAreCountedAndLoggedOnce() {
        Recording g = new Recording();
        Bridge.install(g);
        String key = "llm.test via " + Connections.UNKNOWN_CLIENT; // a test's stack has no known HTTP client
        long before = count(key);
        Connections.opening(InetSocketAddress.createUnresolved("llm.test", 443));
        Connections.opening(InetSocketAddress.createUnresolved("llm.test", 443));
        assertThat(count(key) - before).isEqualTo(2);
        assertThat(g.logged).containsExactly("llm.test " + Connections.UNKNOWN_CLIENT);
        assertThat(g.lookups)
                .as("the host's and the endpoint's answers are remembered")
                .isEqualTo(2);
    }

    @Test
    void otherHostsAndPortsAndSluicesOwnAttemptsAreNotCounted() {
        Recording g = new Recording();
        Bridge.install(g);
        Connections.opening(InetSocketAddress.createUnresolved("db.test", 5432));
        Connections.opening(InetSocketAddress.createUnresolved("db.test", 5432));
        Connections.opening(InetSocketAddress.createUnresolved("llm.test", 8443));
        Connections.opening("not an address");
        Connections.opening(null);
        Bridge.beginDispatch();
        try {
            Connections.opening(InetSocketAddress.createUnresolved("llm.test", 443));
        } finally {
            Bridge.endDispatch();
        }
        assertThat(Connections.ungoverned().keySet()).noneMatch(k -> k.startsWith("db.test"));
        assertThat(g.lookups)
                .as("db.test asked about once, by host; llm.test by host, then at 8443 and 443")
                .isEqualTo(4);
        assertThat(g.logged).isEmpty();
    }

    @Test
    void nothingIsWatchedWithoutAGovernance() {
        long before = count("llm.test via " + Connections.UNKNOWN_CLIENT);
        Connections.opening(InetSocketAddress.createUnresolved("llm.test", 443));
        assertThat(count("llm.test via " + Connections.UNKNOWN_CLIENT)).isEqualTo(before);
    }

    @Test
    void theClientIsNamedByTheFirstKnownFrameOfTheConnectingStack() {
        assertThat(Connections.clientOf(stack("java.net.Socket", "sun.net.NetworkClient", "com.acme.App")))
                .isEqualTo("HttpURLConnection");
        assertThat(Connections.clientOf(stack(
                        "sun.nio.ch.SocketChannelImpl",
                        "jdk.internal.net.http.PlainHttpConnection",
                        "org.springframework.http.client.JdkClientHttpRequest")))
                .isEqualTo("jdk-http-client");
        assertThat(Connections.clientOf(stack(
                        "java.net.Socket",
                        "org.apache.hc.client5.http.impl.io.DefaultHttpClientConnectionOperator",
                        "okhttp3.OkHttpClient")))
                .isEqualTo("apache-httpclient-5");
        assertThat(Connections.clientOf(stack("io.netty.channel.epoll.AbstractEpollChannel")))
                .isEqualTo("netty");
        assertThat(Connections.clientOf(stack("java.net.Socket", "com.acme.RawClient")))
                .isEqualTo(Connections.UNKNOWN_CLIENT);
    }

    @Test
    void aClientAnInstalledHookGovernsIsNeverCounted() {
        Recording g = new Recording();
        Bridge.install(g);
        Connections.governedClient(Connections.UNKNOWN_CLIENT); // stands for a governed client here
        Connections.governedClient(Connections.UNKNOWN_CLIENT); // declared twice, kept once
        try {
            long before = count("llm.test via " + Connections.UNKNOWN_CLIENT);
            Connections.opening(InetSocketAddress.createUnresolved("llm.test", 443));
            assertThat(count("llm.test via " + Connections.UNKNOWN_CLIENT)).isEqualTo(before);
        } finally {
            Connections.forgetGovernedClientsForTests();
        }
    }

    private static StackTraceElement[] stack(String... classes) {
        StackTraceElement[] out = new StackTraceElement[classes.length];
        for (int i = 0; i < classes.length; i++) {
            out[i] = new StackTraceElement(classes[i], "m", null, -1);
        }
        return out;
    }
}
