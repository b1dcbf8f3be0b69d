package dev.sluice.agent;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The Attach API side of {@link AttachCommand}, in a class of its own so that the rest of the
 * command line never links {@code com.sun.tools.attach} (absent from runtimes without
 * {@code jdk.attach}).
 */
final class TargetJvm {

    private TargetJvm() {}

    static int attach(long pid, Path jar, String options, PrintStream out, PrintStream err) {
        String id = Long.toString(pid);
        if (!listed(id)) {
            err.println("sluice attach: note: no JVM with pid " + pid + " is listed for this user (jps); trying anyway,"
                    + " which may take 10 s");
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(id);
        } catch (AttachNotSupportedException | IOException refused) {
            String reason = String.valueOf(refused.getMessage());
            err.println("sluice attach: cannot attach to JVM " + pid + ": " + reason);
            if (reason.contains("does not support the attach mechanism")) {
                err.println("  It was started with -XX:+DisableAttachMechanism and accepts no attach; start it with"
                        + " -javaagent:" + jar + " instead");
            } else {
                err.println("  The target must be a HotSpot JVM running as the same user and in the same container"
                        + " (PID namespace) as this command; otherwise start it with -javaagent:" + jar);
            }
            return AttachCommand.FAILED;
        }
        try {
            Properties target = vm.getSystemProperties();
            String state = target.getProperty(AgentStartup.STATE_PROPERTY);
            if (state != null) {
                err.println("sluice attach: JVM " + pid + " already runs the agent (" + firstLine(state) + "); nothing"
                        + " was loaded. Tune it through JMX (domain dev.sluice), or restart it to change its config.");
                return AttachCommand.ALREADY_RUNNING;
            }
            String feature = target.getProperty("java.specification.version", "");
            if (feature.startsWith("1.")) {
                err.println(
                        "sluice attach: JVM " + pid + " runs Java " + feature + "; the agent needs Java 11 or later");
                return AttachCommand.FAILED;
            }
            vm.loadAgent(jar.toString(), options);
            state = vm.getSystemProperties().getProperty(AgentStartup.STATE_PROPERTY);
            if (state == null) {
                err.println("sluice attach: the agent was loaded into JVM " + pid + " but did not report its state;"
                        + " see that JVM's standard error");
                return AttachCommand.FAILED;
            }
            if (!state.startsWith("running ")) {
                err.println("sluice attach: the agent was loaded into JVM " + pid + " but runs UNGOVERNED: "
                        + state.substring(state.indexOf(' ') + 1));
                return AttachCommand.FAILED;
            }
            out.println("sluice attached to JVM " + pid + ": " + state.substring("running ".length()));
            return AttachCommand.ATTACHED;
        } catch (AgentLoadException | AgentInitializationException refused) {
            err.println("sluice attach: JVM " + pid + " refused to load the agent: " + refused.getMessage());
            err.println("  JDK 21 and later refuse when started with -XX:-EnableDynamicAgentLoading; start it with"
                    + " -javaagent:" + jar + " instead");
            return AttachCommand.FAILED;
        } catch (IOException | RuntimeException broken) {
            err.println("sluice attach: lost JVM " + pid + " while attaching: " + broken);
            return AttachCommand.FAILED;
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // the target went away; nothing to release on this side
            }
        }
    }

    /** Whether the JVM shows in the attach provider's list (not all do: -XX:-UsePerfData hides one). */
    private static boolean listed(String id) {
        try {
            for (VirtualMachineDescriptor d : VirtualMachine.list()) {
                if (d.id().equals(id)) {
                    return true;
                }
            }
            return false;
        } catch (RuntimeException unknown) {
            return true;
        }
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }
}
