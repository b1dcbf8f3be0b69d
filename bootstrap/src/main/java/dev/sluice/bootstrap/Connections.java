package dev.sluice.bootstrap;

import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sees every TCP connection the JVM opens ({@code java.net.Socket.connect} and
 * {@code sun.nio.ch.SocketChannelImpl.connect}, which every HTTP client passes through) and counts
 * those to a host Sluice recognises as a provider that a client Sluice does not govern opened:
 * calls to that provider bypass the governor, and the operator must hear about it.
 *
 * <p>The client is named from the stack of the connecting thread (the first frame of a known HTTP
 * client package); it is governed when an installed instrumentation {@linkplain
 * #governedClient(String) declared} it governs that client's exchanges (OkHttp, the JDK client), or
 * when Sluice itself is dispatching on the thread. A connection a governed client opens on behalf
 * of a governed exchange, on whatever thread, is therefore never counted.
 *
 * <p>Cost for a connection to any other host: one host-string read and one hash lookup. Never
 * throws into the connecting thread.
 */
public final class Connections {

    /** Package prefixes of HTTP clients and the name each is reported under, most specific first. */
    private static final String[][] CLIENTS = {
        {"okhttp3.", "okhttp"},
        {"jdk.internal.net.http.", "jdk-http-client"},
        {"sun.net.www.", "HttpURLConnection"},
        {"sun.net.NetworkClient", "HttpURLConnection"},
        {"org.apache.hc.", "apache-httpclient-5"},
        {"org.apache.http.", "apache-httpclient-4"},
        {"reactor.netty.", "reactor-netty"},
        {"io.netty.", "netty"},
        {"org.eclipse.jetty.", "jetty-client"},
        {"io.vertx.", "vertx"},
    };

    /** Reported for a connection opened outside any known client (a raw socket, an unknown library). */
    public static final String UNKNOWN_CLIENT = "an unknown client";

    /** Client names whose exchanges an installed instrumentation governs. Copy-on-write. */
    private static volatile String[] governedClients = new String[0];

    /** Whether a host is a provider's on some port, and a {@code host:port} on that one, for {@link #recognisedUnder}. */
    private static final Map<String, Boolean> PROVIDER_HOSTS = new ConcurrentHashMap<String, Boolean>();

    private static final Map<String, Boolean> PROVIDER_ENDPOINTS = new ConcurrentHashMap<String, Boolean>();

    /** The port {@link Governance#recognisesEndpoint} is asked about to mean any port. */
    public static final int ANY_PORT = -1;

    private static volatile Governance recognisedUnder;
    private static final int MAX_REMEMBERED_ENDPOINTS = 4096;

    /** Ungoverned connections by {@code "<host> via <client>"}. */
    private static final Map<String, AtomicLong> UNGOVERNED = new ConcurrentHashMap<String, AtomicLong>();

    private static final ThreadLocal<boolean[]> INSIDE = new ThreadLocal<boolean[]>() {
        @Override
        protected boolean[] initialValue() {
            return new boolean[1];
        }
    };

    private Connections() {}

    /** An installed instrumentation governs every exchange of this client (a name of {@link #clientOf}). */
    public static synchronized void governedClient(String name) {
        for (String known : governedClients) {
            if (known.equals(name)) {
                return;
            }
        }
        String[] more = new String[governedClients.length + 1];
        System.arraycopy(governedClients, 0, more, 0, governedClients.length);
        more[governedClients.length] = name;
        governedClients = more;
    }

    /** Tests only: no client governed. */
    static synchronized void forgetGovernedClientsForTests() {
        governedClients = new String[0];
    }

    /** The entry of the connect advice: {@code endpoint} is the connect method's address argument. */
    public static void opening(Object endpoint) {
        if (!(endpoint instanceof InetSocketAddress)) {
            return;
        }
        Governance g = Bridge.governance();
        if (g == Governance.PASS_THROUGH) {
            return;
        }
        boolean[] inside = INSIDE.get();
        if (inside[0]) {
            return;
        }
        inside[0] = true;
        try {
            InetSocketAddress address = (InetSocketAddress) endpoint;
            String host = address.getHostString(); // never a reverse lookup
            if (host == null || !isProviderEndpoint(g, host, address.getPort()) || Bridge.isDispatching()) {
                return;
            }
            String client = clientOf(Thread.currentThread().getStackTrace());
            if (isGoverned(client)) {
                return;
            }
            String key = host + " via " + client;
            AtomicLong count = UNGOVERNED.get(key);
            if (count == null) {
                AtomicLong fresh = new AtomicLong();
                count = UNGOVERNED.putIfAbsent(key, fresh);
                if (count == null) {
                    count = fresh;
                    g.onUngovernedConnection(host, client); // once per host and client
                }
            }
            count.incrementAndGet();
        } catch (Throwable fault) {
            Bridge.hookFault("connections", fault);
        } finally {
            inside[0] = false;
        }
    }

    private static boolean isProviderEndpoint(Governance g, String host, int port) {
        if (recognisedUnder != g) {
            PROVIDER_HOSTS.clear(); // a new governance (start, reload) may know other providers
            PROVIDER_ENDPOINTS.clear();
            recognisedUnder = g;
        }
        // first by host alone, without allocating: nearly every connection stops here
        Boolean anyPort = PROVIDER_HOSTS.get(host);
        if (anyPort == null) {
            anyPort = g.recognisesEndpoint(host, ANY_PORT);
            remember(PROVIDER_HOSTS, host, anyPort);
        }
        if (!anyPort) {
            return false;
        }
        String key = host + ':' + port;
        Boolean known = PROVIDER_ENDPOINTS.get(key);
        if (known == null) {
            known = g.recognisesEndpoint(host, port);
            remember(PROVIDER_ENDPOINTS, key, known);
        }
        return known;
    }

    private static void remember(Map<String, Boolean> cache, String key, Boolean answer) {
        if (cache.size() < MAX_REMEMBERED_ENDPOINTS) {
            cache.put(key, answer);
        }
    }

    private static boolean isGoverned(String client) {
        for (String governed : governedClients) {
            if (governed.equals(client)) {
                return true;
            }
        }
        return false;
    }

    /** The HTTP client a connecting thread's stack belongs to, or {@link #UNKNOWN_CLIENT}. */
    static String clientOf(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            String type = frame.getClassName();
            for (String[] client : CLIENTS) {
                if (type.startsWith(client[0])) {
                    return client[1];
                }
            }
        }
        return UNKNOWN_CLIENT;
    }

    /** Ungoverned connections so far by {@code "<host> via <client>"}, sorted. A snapshot. */
    public static Map<String, Long> ungoverned() {
        Map<String, Long> out = new TreeMap<String, Long>();
        for (Map.Entry<String, AtomicLong> e : UNGOVERNED.entrySet()) {
            out.put(e.getKey(), e.getValue().get());
        }
        return Collections.unmodifiableMap(out);
    }
}
