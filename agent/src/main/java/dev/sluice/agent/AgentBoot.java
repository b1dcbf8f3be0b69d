package dev.sluice.agent;

import java.lang.instrument.Instrumentation;

/**
 * The agent's first class in its own loader ({@link AgentLoader}): puts the bridge into the
 * bootstrap loader, then starts the agent. Its own signatures and body use JDK types only, so the
 * bridge types that {@link AgentStartup} uses are linked only after {@link BootLoaderBridge} has
 * defined them. Whatever fails, it prints one line and returns: the JVM keeps running, ungoverned.
 */
final class AgentBoot implements AgentEntry {

    static {
        AgentEntry.Slot.put(new AgentBoot());
    }

    private AgentBoot() {}

    @Override
    public void start(String args, Instrumentation instrumentation, boolean lateAttach, long startedNanos) {
        try {
            BootLoaderBridge.install(instrumentation);
            AgentStartup.start(args, instrumentation, lateAttach, startedNanos);
        } catch (Throwable failure) {
            AgentEntry.failedToStart(failure);
        }
    }
}
