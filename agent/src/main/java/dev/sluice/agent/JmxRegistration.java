package dev.sluice.agent;

import dev.sluice.config.ConfigLoader;
import dev.sluice.config.ConfigSources;
import dev.sluice.config.SluiceConfig;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.core.jmx.SluiceMBeans;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;

/**
 * Registers the {@code dev.sluice} MXBeans in the platform MBeanServer, off the host's start-up
 * path, on a short-lived daemon thread that ends once they are registered.
 *
 * <p>Not at once: creating the platform MBeanServer initialises {@code java.util.logging} (about a
 * quarter of a second, and for good: an application server that installs its own log manager or
 * MBeanServer builder afterwards, such as WildFly or WebLogic, then fails to). So it waits a
 * couple of seconds after {@code premain}, enough for a {@code main} to set its logging up; when
 * the JVM names its own log manager or MBeanServer builder, it waits until the host has created an
 * MBeanServer itself. A late attach registers at once: the application is running.
 *
 * <p>It also leaves two system properties, read by {@code status} and {@code limits} to find the
 * JVMs that run the agent: {@value #VERSION_PROPERTY} and {@value #JMX_PROPERTY} ({@code starting},
 * {@code registered}, {@code disabled} or {@code failed}).
 */
final class JmxRegistration implements Runnable {

    static final String VERSION_PROPERTY = "dev.sluice.agent.version";
    static final String JMX_PROPERTY = "dev.sluice.agent.jmx";

    /**
     * Test only: multiplies the windows, holds and checks of the Governor bean's alert
     * notifications, so an integration test sees a two-minute rule fire in seconds.
     */
    static final String TEST_ALERT_TIME_SCALE_PROPERTY = "dev.sluice.agent.test.alertTimeScale";

    static final long DELAY_MILLIS = 2_000;

    private final SluiceRuntime runtime;
    private final ConfigSources sources;
    private final long delayMillis;

    private JmxRegistration(SluiceRuntime runtime, ConfigSources sources, long delayMillis) {
        this.runtime = runtime;
        this.sources = sources;
        this.delayMillis = delayMillis;
    }

    /** Marks this JVM as running the agent and registers the MXBeans if the config enables them. */
    static void start(SluiceRuntime runtime, ConfigSources sources, boolean lateAttach) {
        System.setProperty(VERSION_PROPERTY, AgentVersion.get());
        if (!runtime.config().jmx().enabled()) {
            System.setProperty(JMX_PROPERTY, "disabled");
            return;
        }
        System.setProperty(JMX_PROPERTY, "starting");
        Thread thread = new Thread(new JmxRegistration(runtime, sources, lateAttach ? 0 : DELAY_MILLIS), "sluice-jmx");
        thread.setDaemon(true);
        thread.setPriority(Thread.MIN_PRIORITY);
        thread.start();
    }

    @Override
    public void run() {
        try {
            Thread.sleep(delayMillis);
            HostGlobals.awaitHost();
            SluiceMBeans.register(
                    runtime, ManagementFactory.getPlatformMBeanServer(), new Reload(sources), alertTimeScale());
            System.setProperty(JMX_PROPERTY, "registered");
            if (AgentLog.isDebug()) {
                AgentLog.get().debug("MXBeans registered under {}:*", SluiceMBeans.DOMAIN);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable failure) {
            System.setProperty(JMX_PROPERTY, "failed");
            AgentLog.get().warn("MXBeans not registered, JMX shows nothing of Sluice: {}", failure.toString());
        }
    }

    private static double alertTimeScale() {
        String scale = System.getProperty(TEST_ALERT_TIME_SCALE_PROPERTY);
        return scale == null ? 1.0 : Double.parseDouble(scale);
    }

    /** Loads the configuration again from the sources the agent started with. */
    private static final class Reload implements Callable<SluiceConfig> {
        private final ConfigSources sources;

        Reload(ConfigSources sources) {
            this.sources = sources;
        }

        @Override
        public SluiceConfig call() throws Exception {
            return ConfigLoader.load(sources);
        }
    }
}
