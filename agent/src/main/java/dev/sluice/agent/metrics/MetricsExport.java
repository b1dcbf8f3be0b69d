package dev.sluice.agent.metrics;

import dev.sluice.agent.AgentLog;
import dev.sluice.config.Dimension;
import dev.sluice.config.MetricsConfig;
import dev.sluice.core.CallContext;
import dev.sluice.core.Demand;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.core.Usage;
import dev.sluice.core.jmx.MXBeanViews;
import dev.sluice.core.telemetry.CallListener;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.BindException;

/**
 * Sluice's metrics, when {@code metrics} enables them: the Prometheus endpoint (its own registry,
 * never the client's default one, which an application might use) and the GenAI instruments in the
 * application's OpenTelemetry meters. Started once the governor serves calls; the endpoint binds
 * on a short-lived daemon thread, so a slow name look-up or a port in use costs the host nothing
 * but one log line.
 */
public final class MetricsExport implements AutoCloseable {

    private final PrometheusRegistry registry;
    private final Calls calls;
    private volatile PrometheusEndpoint endpoint;

    private MetricsExport(PrometheusRegistry registry, Calls calls) {
        this.registry = registry;
        this.calls = calls;
    }

    /**
     * Starts what the config asks for; null when it asks for nothing. Never throws: a failure is
     * logged and leaves the service unmeasured, never ungoverned.
     */
    public static MetricsExport start(SluiceRuntime runtime, String version) {
        MetricsConfig config = runtime.config().metrics();
        if (!config.enabled()) {
            return null;
        }
        try {
            PrometheusRegistry registry = config.port() > 0 ? new PrometheusRegistry() : null;
            CallRecorder prometheus = registry == null ? null : new CallRecorder(registry, null, config.tokenDetail());
            Calls calls = new Calls(prometheus, config.openTelemetry(), config.tokenDetail(), version);
            runtime.governance().callListener(calls);
            MetricsExport export = new MetricsExport(registry, calls);
            if (registry != null) {
                registry.register(new SluiceCollector(new MXBeanViews(runtime), config.maxTenants(), version));
                export.serveInBackground(config);
            }
            return export;
        } catch (RuntimeException | LinkageError e) {
            AgentLog.get().warn("metrics not started: {}", e.toString());
            return null;
        }
    }

    private void serveInBackground(MetricsConfig config) {
        Thread binding = new Thread(
                new Runnable() {
                    @Override
                    public void run() {
                        serve(config);
                    }
                },
                "sluice-metrics-start");
        binding.setDaemon(true);
        binding.setPriority(Thread.MIN_PRIORITY);
        binding.start();
    }

    private void serve(MetricsConfig config) {
        try {
            // the JDK's HTTP server and the exporter log through the JDK's logging: a host that
            // installs its own log manager in main must have done so first
            dev.sluice.agent.HostGlobals.awaitHost();
            endpoint = PrometheusEndpoint.start(registry, config.bind(), config.port(), config.path());
            AgentLog.get().info("metrics served on http://{}:{}{}", config.bind(), config.port(), config.path());
        } catch (BindException e) {
            AgentLog.get()
                    .warn(
                            "metrics endpoint not started: {}:{} is in use or not this host's ({}); set metrics.port to"
                                    + " a free port",
                            config.bind(),
                            config.port(),
                            e.getMessage());
        } catch (IOException | RuntimeException e) {
            AgentLog.get()
                    .warn("metrics endpoint not started on {}:{}: {}", config.bind(), config.port(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The Prometheus registry the endpoint serves; null when there is no endpoint. */
    PrometheusRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        PrometheusEndpoint e = endpoint;
        if (e != null) {
            e.close();
        }
    }

    /**
     * The call listener: the Prometheus recorder, and the OpenTelemetry one once the application's
     * global instance is found (looked for from the thread of a call that ends, whose context class
     * loader sees the application's classes, at most every few seconds until found).
     */
    static final class Calls implements CallListener {
        private final CallRecorder prometheus;
        private final boolean openTelemetry;
        private final boolean tokenDetail;
        private final String version;
        private volatile CallRecorder otel;
        private volatile long nextLookNanos;
        private volatile boolean gaveUp;

        Calls(CallRecorder prometheus, boolean openTelemetry, boolean tokenDetail, String version) {
            this.prometheus = prometheus;
            this.openTelemetry = openTelemetry;
            this.tokenDetail = tokenDetail;
            this.version = version;
        }

        @Override
        public void callEnded(
                CallContext call,
                long durationNanos,
                Usage usage,
                String responseModel,
                Demand estimated,
                String errorType) {
            if (prometheus != null) {
                prometheus.callEnded(call, durationNanos, usage, responseModel, estimated, errorType);
            }
            CallRecorder o = openTelemetry();
            if (o != null) {
                o.callEnded(call, durationNanos, usage, responseModel, estimated, errorType);
            }
        }

        @Override
        public void attemptRefused(
                CallContext call, String providerScopeKey, int status, Dimension limiter, boolean retried) {
            if (prometheus != null) {
                prometheus.attemptRefused(call, providerScopeKey, status, limiter, retried);
            }
        }

        private CallRecorder openTelemetry() {
            CallRecorder o = otel;
            if (o != null || !openTelemetry || gaveUp) {
                return o;
            }
            long now = System.nanoTime();
            if (now - nextLookNanos < 0) {
                return null;
            }
            synchronized (this) {
                if (otel != null || now - nextLookNanos < 0) {
                    return otel;
                }
                nextLookNanos = now + OpenTelemetryBridge.RETRY_MILLIS * 1_000_000L;
                try {
                    GenAiSink sink = OpenTelemetryBridge.find(applicationLoader(), version);
                    if (sink == null && applicationLoader() != ClassLoader.getSystemClassLoader()) {
                        sink = OpenTelemetryBridge.find(ClassLoader.getSystemClassLoader(), version);
                    }
                    if (sink != null) {
                        otel = new CallRecorder(null, sink, tokenDetail);
                        AgentLog.get().info("gen_ai metrics recorded into the application's OpenTelemetry meters");
                    }
                } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                    gaveUp = true;
                    AgentLog.get()
                            .warn(
                                    "gen_ai metrics not recorded into OpenTelemetry: its API could not be used: {}",
                                    e.toString());
                }
                return otel;
            }
        }

        /** The loader that sees the application's classes from this (an application) thread. */
        private static ClassLoader applicationLoader() {
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            return context != null ? context : ClassLoader.getSystemClassLoader();
        }
    }
}
