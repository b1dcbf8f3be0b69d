package dev.sluice.agent;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hooks;
import dev.sluice.instrumentation.api.HelperHookFactory;
import dev.sluice.instrumentation.api.InstrumentationModule;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts the agent once the bridge is on the bootstrap path: plugs the governance in behind the
 * bridge, then installs the instrumentations, then prints the one start line. Called by
 * {@link SluiceAgent} through reflection. Never throws: a failure prints one line and leaves the
 * JVM running ungoverned (the bridge stays at {@link Governance#PASS_THROUGH}).
 */
public final class AgentStartup {

    /** Where helper bytes live inside the agent jar: {@code sluice-helpers/<module>/<class path>}. */
    static final String HELPER_ROOT = "sluice-helpers/";

    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private AgentStartup() {}

    /** Entry from the trampoline. */
    public static void start(String rawArgs, Instrumentation instrumentation, boolean lateAttach) {
        if (!STARTED.compareAndSet(false, true)) {
            System.err.println("[sluice] already running in this JVM; ignoring this " + (lateAttach ? "attach" : "start"));
            return;
        }
        try {
            AgentArgs args = AgentArgs.parse(rawArgs);
            AgentLog.configure(args.get("log") != null ? args.get("log") : System.getProperty("sluice.log.level"));
            GovernanceWiring wiring = installGovernance(args);

            ClassLoader agentLoader = AgentStartup.class.getClassLoader();
            List<String> failures = new ArrayList<>();
            List<InstrumentationModule> modules = InstrumentationCatalog.load(agentLoader, failures);
            Hooks.install(new HelperHookFactory(modules, agentLoader, HELPER_ROOT));
            Installer.install(instrumentation, modules, agentLoader);

            StringJoiner names = new StringJoiner(",");
            for (InstrumentationModule module : modules) {
                names.add(module.name());
            }
            System.err.println("[sluice] " + AgentVersion.get() + " mode=" + wiring.mode + " config=" + wiring.configSource
                    + " instrumentations=" + names);
            for (String failure : failures) {
                AgentLog.get().warn("instrumentation not installed: {}", failure);
            }
        } catch (Throwable failure) {
            try {
                Bridge.install(Governance.PASS_THROUGH);
            } catch (Throwable ignored) {
                // the bridge itself is unusable: nothing is governed either way
            }
            System.err.println("[sluice] failed to start, the JVM runs ungoverned: " + failure);
        }
    }

    /**
     * THE place where the governor is plugged in behind the bridge.
     *
     * <p>The lead wires it here: load the configuration with {@code dev.sluice.config.ConfigLoader}
     * (agent options {@code args.asMap()} take precedence over system properties, environment and
     * file), build the core governor from it, {@code Bridge.install(governor)}, and return its mode
     * and config source for the start line. Until then nothing is governed: the bridge keeps
     * {@link Governance#PASS_THROUGH} and every hook lets its call through untouched.
     */
    static GovernanceWiring installGovernance(AgentArgs args) {
        Bridge.install(Governance.PASS_THROUGH);
        return new GovernanceWiring("enforce", "defaults");
    }

    /** What the start line reports about the installed governance. */
    static final class GovernanceWiring {
        final String mode;
        final String configSource;

        GovernanceWiring(String mode, String configSource) {
            this.mode = mode;
            this.configSource = configSource;
        }
    }
}
