package dev.sluice.it.providers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A hosts file for {@code -Djdk.net.hosts.file}: the forked JVM resolves the providers' public
 * host names to 127.0.0.1, so an SDK pointed at {@code http://api.anthropic.com:<port>} reaches
 * the local simulator while Sluice sees the real host name and recognises the provider with no
 * config at all. The JDK then resolves every name from this file only (OkHttp's default DNS and
 * the JDK HttpClient both go through {@code InetAddress}), which is what a test wants: nothing
 * leaves the machine.
 */
public final class LoopbackHosts {

    public static final String PROPERTY = "jdk.net.hosts.file";

    private LoopbackHosts() {}

    /** A hosts file naming these hosts (and localhost) at 127.0.0.1; deleted when the test JVM exits. */
    public static String file(String... hosts) {
        StringBuilder text = new StringBuilder("127.0.0.1 localhost\n");
        for (String host : hosts) {
            text.append("127.0.0.1 ").append(host).append('\n');
        }
        try {
            Path file = Files.createTempFile("sluice-hosts-", ".txt");
            Files.writeString(file, text);
            file.toFile().deleteOnExit();
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code http://<host>:<port><path>}: the simulator's port under a provider's public host name. */
    public static String url(String host, int port, String path) {
        return "http://" + host + ":" + port + path;
    }
}
