package dev.sluice.core.store;

import dev.sluice.core.testing.Prerequisites;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientPauseMode;

/**
 * A real {@code redis-server} of a test's own, on a free loopback port, with no persistence: it
 * can be stopped and started again on the same port (empty, like a restarted Redis without a
 * disk). Where the binary is absent, tests that need one are skipped, visibly, or fail in CI
 * ({@link Prerequisites}; {@code .ci/run} installs it).
 */
public final class RedisServer implements AutoCloseable {

    private static final String[] CANDIDATES = {"/usr/bin/redis-server", "/usr/local/bin/redis-server"};

    private final String binary;
    private final int port;
    private Process process;

    private RedisServer(String binary, int port) {
        this.binary = binary;
        this.port = port;
    }

    /** Starts one; when redis-server is not installed, skips the calling test (fails it in CI). */
    public static RedisServer start() throws IOException, InterruptedException {
        String binary = binary();
        Prerequisites.require(
                binary != null,
                "redis-server is not installed (apt-get install -y redis-server); the Redis store tests need it");
        RedisServer s = new RedisServer(binary, freePort());
        s.startAgain();
        return s;
    }

    /** The redis-server binary, or null. */
    public static String binary() {
        for (String c : CANDIDATES) {
            if (Files.isExecutable(Paths.get(c))) {
                return c;
            }
        }
        return null;
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** (Re)starts the server on its port, empty, and waits until it accepts connections. */
    public void startAgain() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                binary,
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--protected-mode",
                "no",
                "--dir",
                System.getProperty("java.io.tmpdir")));
        Path log = Files.createTempFile("redis-" + port + "-", ".log");
        process = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    throw new IOException("redis-server exited: " + Files.readString(log));
                }
                Thread.sleep(20);
            }
        }
        throw new IOException("redis-server did not start on port " + port);
    }

    /**
     * Holds every client's commands for {@code millis}, as a Redis stalled by a busy host or a slow
     * command would: connections stay open and answers come late, past the store's timeout.
     * Returns once the pause has begun.
     */
    public void pauseClients(long millis) {
        try (Jedis jedis = new Jedis("127.0.0.1", port)) {
            jedis.clientPause(millis, ClientPauseMode.ALL);
        }
    }

    /** Kills the server at once (no shutdown save), like a crash. */
    public void stop() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            process = null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
