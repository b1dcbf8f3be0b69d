package dev.sluice.agent;

import java.lang.instrument.Instrumentation;

/**
 * {@code Premain-Class} and {@code Agent-Class} of the agent jar: a trampoline.
 *
 * <p>The bridge classes ({@code dev.sluice.bootstrap.*}) must be defined by the bootstrap loader,
 * and only there, so advice in every loader (even {@code java.net.http}) reaches one and the
 * same governor. They travel inside this jar as a nested jar, invisible to every class path. This
 * class has {@link BootLoaderBridge} put them there before anything refers to a bridge type: its
 * own signatures and body use JDK types only, and {@link AgentStartup} (which does use the
 * bridge) is linked only when the call below first runs, after that. A direct call, not
 * reflection: since JDK 18 the first reflective call spins method handles (~60 ms of start-up).
 * Whatever fails, it prints one line and returns: the JVM keeps running, ungoverned.
 */
public final class SluiceAgent {

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
            BootLoaderBridge.install(instrumentation);
            AgentStartup.start(args, instrumentation, lateAttach, startedNanos);
        } catch (Throwable failure) {
            System.err.println("[sluice] failed to start, the JVM runs ungoverned: " + failure);
            if (System.getProperty(AgentStartup.STATE_PROPERTY) == null) {
                System.setProperty(AgentStartup.STATE_PROPERTY, "ungoverned failed to start: " + failure);
            }
        }
    }
}
