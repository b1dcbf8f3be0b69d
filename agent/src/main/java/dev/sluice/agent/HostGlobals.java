package dev.sluice.agent;

import javax.management.MBeanServerFactory;

/**
 * When the agent may touch the JVM's set-once globals (the JDK's log manager, the platform
 * MBeanServer): a server that installs its own (JBoss Modules and WildFly name their log manager
 * and MBeanServer builder in system properties, then install them in {@code main}) must find them
 * untouched. Whatever initialises them (registering MXBeans, the JDK's HTTP server and the
 * Prometheus exporter logging through {@code java.util.logging}) waits until the host has created
 * an MBeanServer itself, which such a server does after its log manager.
 */
public final class HostGlobals {

    static final long POLL_MILLIS = 500;
    static final long MAX_HOST_WAIT_MILLIS = 10 * 60_000;

    private HostGlobals() {}

    /** Whether the JVM names a log manager or an MBeanServer builder that the host installs itself. */
    public static boolean hostBringsItsOwn() {
        return System.getProperty("java.util.logging.manager") != null
                || System.getProperty("javax.management.builder.initial") != null;
    }

    /**
     * Waits, when the host brings its own globals, until it has created an MBeanServer (at most
     * ten minutes); returns at once otherwise.
     */
    public static void awaitHost() throws InterruptedException {
        if (!hostBringsItsOwn()) {
            return;
        }
        long waited = 0;
        while (MBeanServerFactory.findMBeanServer(null).isEmpty() && waited < MAX_HOST_WAIT_MILLIS) {
            Thread.sleep(POLL_MILLIS);
            waited += POLL_MILLIS;
        }
    }
}
