package dev.sluice.agent;

import java.lang.instrument.Instrumentation;

/**
 * {@code Premain-Class} and {@code Agent-Class} of the agent jar: a trampoline into the agent's own
 * class loader ({@link AgentLoader}), where {@link AgentBoot} puts the bridge into the bootstrap
 * loader and starts the agent. One loader per JVM: a second attach reaches the same agent, which
 * then says it is already running. Whatever fails, it prints one line and returns: the JVM keeps
 * running, ungoverned.
 */
public final class SluiceAgent {

    private static final String AGENT_BOOT = "dev.sluice.agent.AgentBoot";

    private static AgentLoader loader;

    private SluiceAgent() {}

    /** Start with the JVM: {@code -javaagent:sluice-agent.jar[=options]}. */
    public static void premain(String args, Instrumentation instrumentation) {
        start(args, instrumentation, false);
    }

    /** Late attach to a running JVM: classes already loaded are retransformed. */
    public static void agentmain(String args, Instrumentation instrumentation) {
        start(args, instrumentation, true);
    }

    private static void start(String args, Instrumentation instrumentation, boolean lateAttach) {
        long startedNanos = System.nanoTime();
        try {
            // by name: a class literal would load AgentBoot here, on the system class loader
            Class.forName(AGENT_BOOT, true, loader()); // initialising it puts its entry in the slot
            AgentEntry.Slot.get().start(args, instrumentation, lateAttach, startedNanos);
        } catch (Throwable failure) {
            AgentEntry.failedToStart(failure);
        }
    }

    private static synchronized AgentLoader loader() throws java.io.IOException {
        if (loader == null) {
            loader = new AgentLoader(SluiceAgent.class.getProtectionDomain().getCodeSource());
        }
        return loader;
    }
}
