package dev.sluice.agent;

import dev.sluice.core.jmx.GovernorMXBean;
import dev.sluice.core.jmx.SluiceMBeans;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import javax.management.JMX;
import javax.management.MBeanServerConnection;

/**
 * {@code status [pid]} and {@code limits [pid]}: attach to a local JVM that runs the agent and
 * print its live view, or its limits table; without a pid, list the local JVMs that run the agent.
 */
final class StatusCommand {

    /** How long to wait for a JVM that started moments ago to register its MXBeans. */
    static final long REGISTRATION_WAIT_MILLIS = 6_000;

    private StatusCommand() {}

    static int run(String command, String[] args, PrintStream out, PrintStream err) {
        if (args.length > 2 || (args.length == 2 && !args[1].matches("[0-9]+"))) {
            err.println("usage: java -jar sluice-agent.jar " + command + " [pid]");
            return 2;
        }
        try {
            return args.length == 1 ? list(command, out) : show(command, args[1], out, err);
        } catch (NoClassDefFoundError noAttach) {
            err.println("sluice: " + command + " needs a JDK with the jdk.attach module (this runtime has none: "
                    + noAttach.getMessage() + ")");
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    private static int list(String command, PrintStream out) throws InterruptedException {
        List<LocalJvms.Jvm> jvms = LocalJvms.withAgent();
        if (jvms.isEmpty()) {
            out.println("No local JVM runs the Sluice agent (only JVMs of this user that allow attach are visible).");
            return 1;
        }
        List<String[]> rows = new java.util.ArrayList<>();
        rows.add(new String[] {"PID", "SLUICE", "JMX", "MAIN"});
        for (LocalJvms.Jvm j : jvms) {
            rows.add(new String[] {j.pid, j.version, j.jmx, j.displayName});
        }
        out.println("Local JVMs running the Sluice agent:");
        out.print(TextTable.render(rows));
        out.println("Look into one: java -jar sluice-agent.jar " + command + " <pid>");
        return 0;
    }

    private static int show(String command, String pid, PrintStream out, PrintStream err) throws InterruptedException {
        try (LocalJvms.Connection connection = LocalJvms.connect(pid)) {
            MBeanServerConnection c = connection.connector.getMBeanServerConnection();
            if (!awaitRegistration(c)) {
                err.println("sluice: the agent in JVM " + pid + " has not registered its MXBeans (it does so a couple"
                        + " of seconds after start; see its log if this lasts)");
                return 1;
            }
            if (command.equals("limits")) {
                out.print(JMX.newMXBeanProxy(c, SluiceMBeans.governorName(), GovernorMXBean.class)
                        .describeLimits());
            } else {
                out.print(StatusView.render(c, "Sluice " + connection.version + " in JVM " + pid));
            }
            return 0;
        } catch (LocalJvms.Unavailable e) {
            err.println("sluice: " + e.getMessage());
            return 1;
        } catch (IOException | RuntimeException e) {
            err.println("sluice: reading JVM " + pid + " failed: " + e);
            return 1;
        }
    }

    private static boolean awaitRegistration(MBeanServerConnection c) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + REGISTRATION_WAIT_MILLIS * 1_000_000L;
        while (!c.isRegistered(SluiceMBeans.governorName())) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(200);
        }
        return true;
    }
}
