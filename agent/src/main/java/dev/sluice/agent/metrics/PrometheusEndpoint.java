package dev.sluice.agent.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The Prometheus endpoint: the Prometheus client's HTTP server (the JDK's
 * {@code com.sun.net.httpserver}) on the configured address, port and path, serving the
 * Prometheus text format or OpenMetrics as the scraper asks ({@code Accept}). Scrapes are served
 * one at a time on one daemon thread, {@code sluice-metrics}, never on an application thread; the
 * JDK's dispatcher thread ({@code HTTP-Dispatcher}) is a daemon too, since it is started from a
 * daemon thread.
 */
final class PrometheusEndpoint implements AutoCloseable {

    static final String THREAD = "sluice-metrics";

    private final HTTPServer server;

    private PrometheusEndpoint(HTTPServer server) {
        this.server = server;
    }

    /**
     * Binds and starts serving; to be called from a daemon thread.
     *
     * @throws IOException when the address cannot be bound (a port in use: {@link java.net.BindException})
     */
    static PrometheusEndpoint start(PrometheusRegistry registry, String bind, int port, String path)
            throws IOException {
        ExecutorService scrapes = new ThreadPoolExecutor(
                1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<Runnable>(64), new ThreadFactory() {
                    @Override
                    public Thread newThread(Runnable r) {
                        Thread t = new Thread(r, THREAD);
                        t.setDaemon(true);
                        return t;
                    }
                });
        try {
            HTTPServer server = HTTPServer.builder()
                    .inetAddress(InetAddress.getByName(bind))
                    .port(port)
                    .metricsHandlerPath(path)
                    .registry(registry)
                    .executorService(scrapes)
                    .buildAndStart();
            return new PrometheusEndpoint(server);
        } catch (IOException | RuntimeException e) {
            scrapes.shutdownNow();
            throw e;
        }
    }

    /** The port bound (the configured one). */
    int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
    }
}
