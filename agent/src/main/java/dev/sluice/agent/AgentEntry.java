package dev.sluice.agent;

import java.lang.instrument.Instrumentation;

/**
 * How the trampoline ({@link SluiceAgent}, on the system class loader) starts the agent in its own
 * loader ({@link AgentLoader}) without reflection: the one type both loaders share, the agent's
 * loader delegating its name (and its {@link Slot}'s) to the trampoline's. The agent's side, {@link
 * AgentBoot}, puts an instance in the slot as it initialises; the trampoline takes it and calls it.
 * Not {@code Constructor.newInstance}: since JDK 18 the first reflective call spins method
 * handles, tens of milliseconds of the host's start-up.
 */
public interface AgentEntry {

    void start(String args, Instrumentation instrumentation, boolean lateAttach, long startedNanos);

    /** The one line a failed start prints, on either side; the JVM runs on, ungoverned. */
    static void failedToStart(Throwable failure) {
        System.err.println("[sluice] failed to start, the JVM runs ungoverned: " + failure);
        if (System.getProperty(AgentStartup.STATE_PROPERTY) == null) { // a constant: AgentStartup is not loaded
            System.setProperty(AgentStartup.STATE_PROPERTY, "ungoverned failed to start: " + failure);
        }
    }

    /** Where {@link AgentBoot} leaves itself for the trampoline; public: the two sides are different run-time packages. */
    final class Slot {
        private static volatile AgentEntry entry;

        private Slot() {}

        public static void put(AgentEntry filled) {
            entry = filled;
        }

        public static AgentEntry get() {
            return entry;
        }
    }
}
