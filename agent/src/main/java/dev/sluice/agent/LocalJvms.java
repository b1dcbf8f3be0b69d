package dev.sluice.agent;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The local JVMs the CLI can look into, through the Attach API: which of them run the agent (it
 * leaves {@code dev.sluice.agent.*} system properties), and a JMX connection to one of them over
 * the local connector the Attach API starts (the one JConsole uses; no port is opened). Only JVMs
 * of the same user that allow attach are visible.
 */
final class LocalJvms {

    /** How long listing waits for one JVM to answer: a busy or stuck JVM must not hang the CLI. */
    private static final long ANSWER_SECONDS = 5;

    private LocalJvms() {}

    /** A JVM that runs the agent. */
    static final class Jvm {
        final String pid;
        final String displayName;
        final String version;
        final String jmx;

        Jvm(String pid, String displayName, String version, String jmx) {
            this.pid = pid;
            this.displayName = displayName;
            this.version = version;
            this.jmx = jmx;
        }
    }

    /** The local JVMs (other than this one) that run the agent, by pid. */
    static List<Jvm> withAgent() throws InterruptedException {
        String self = Long.toString(ProcessHandle.current().pid());
        List<VirtualMachineDescriptor> all = VirtualMachine.list();
        if (all.isEmpty()) {
            return Collections.emptyList();
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, all.size()), r -> {
            Thread t = new Thread(r, "sluice-cli-attach");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Jvm>> answers = new ArrayList<>();
            for (VirtualMachineDescriptor d : all) {
                if (!d.id().equals(self)) {
                    answers.add(pool.submit(() -> inspect(d)));
                }
            }
            List<Jvm> found = new ArrayList<>();
            for (Future<Jvm> answer : answers) {
                try {
                    Jvm jvm = answer.get(ANSWER_SECONDS, TimeUnit.SECONDS);
                    if (jvm != null) {
                        found.add(jvm);
                    }
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    answer.cancel(true); // not ours, or not answering: not listed
                }
            }
            found.sort((a, b) -> Long.compare(Long.parseLong(a.pid), Long.parseLong(b.pid)));
            return found;
        } finally {
            pool.shutdownNow();
        }
    }

    private static Jvm inspect(VirtualMachineDescriptor d) {
        try {
            VirtualMachine vm = VirtualMachine.attach(d);
            try {
                Properties p = vm.getSystemProperties();
                String version = p.getProperty(JmxRegistration.VERSION_PROPERTY);
                return version == null
                        ? null
                        : new Jvm(d.id(), d.displayName(), version, p.getProperty(JmxRegistration.JMX_PROPERTY, "?"));
            } finally {
                vm.detach();
            }
        } catch (Exception | LinkageError e) {
            return null;
        }
    }

    /** Why a JVM cannot be looked into, in a sentence for the operator. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message);
        }
    }

    /**
     * Attaches to {@code pid}, checks that it runs the agent with JMX on, starts its local JMX
     * connector if needed and connects to it.
     */
    static Connection connect(String pid) throws Unavailable {
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(pid);
        } catch (Exception e) {
            throw new Unavailable("cannot attach to JVM " + pid + " (is it running, as this user, with attach"
                    + " allowed?): " + e.getMessage());
        }
        String address;
        String version;
        try {
            Properties p = vm.getSystemProperties();
            version = p.getProperty(JmxRegistration.VERSION_PROPERTY);
            if (version == null) {
                throw new Unavailable("JVM " + pid + " does not run the Sluice agent");
            }
            String jmx = p.getProperty(JmxRegistration.JMX_PROPERTY, "?");
            if (jmx.equals("disabled")) {
                throw new Unavailable("JVM " + pid + " runs Sluice " + version + " with jmx.enabled: false;"
                        + " enable it to use status and limits");
            }
            address = vm.startLocalManagementAgent();
        } catch (IOException e) {
            throw new Unavailable("JVM " + pid + " did not start its local JMX connector: " + e.getMessage());
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // detached either way once this process exits
            }
        }
        try {
            JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
            return new Connection(pid, version, connector);
        } catch (IOException e) {
            throw new Unavailable("cannot connect to JVM " + pid + "'s JMX connector: " + e.getMessage());
        }
    }

    /** A JMX connection to a JVM that runs the agent. */
    static final class Connection implements AutoCloseable {
        final String pid;
        final String version;
        final JMXConnector connector;

        Connection(String pid, String version, JMXConnector connector) {
            this.pid = pid;
            this.version = version;
            this.connector = connector;
        }

        @Override
        public void close() {
            try {
                connector.close();
            } catch (IOException ignored) {
                // the other JVM may be gone already
            }
        }
    }
}
