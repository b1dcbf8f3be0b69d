package dev.sluice.agent;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.bootstrap.Governance;
import dev.sluice.bootstrap.Hooks;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.ConfigSources;
import dev.sluice.config.SluiceConfig;
import dev.sluice.core.SluiceRuntime;
import dev.sluice.instrumentation.api.HelperHookFactory;
import dev.sluice.instrumentation.api.InstrumentationModule;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Starts the agent once {@link AgentBoot} has put the bridge into the bootstrap loader: plugs the
 * governance in behind the bridge, installs the instrumentations, prints the one start line.
 * Never throws: a failure prints one line and leaves the JVM running ungoverned (the bridge stays
 * at {@link Governance#PASS_THROUGH}).
 */
public final class AgentStartup {

    /**
     * The system property through which a running agent tells {@code attach} (in another JVM, via
     * the Attach API) that it is there and how it started: {@code running <version> mode=...
     * config=...}, or {@code ungoverned <version> <reason>}. Outside {@code sluice.*}, which is config.
     */
    static final String STATE_PROPERTY = "dev.sluice.agent";

    /** Where helper bytes live inside the agent jar: {@code sluice-helpers/<module>/<class path>}. */
    static final String HELPER_ROOT = "sluice-helpers/";

    /** Guarded by the class: not an AtomicBoolean, whose VarHandle costs milliseconds of JDK 25 start-up. */
    private static boolean started;

    private AgentStartup() {}

    /** Entry from the trampoline, which started at {@code startedNanos} ({@link System#nanoTime()}). */
    public static void start(String rawArgs, Instrumentation instrumentation, boolean lateAttach, long startedNanos) {
        if (!claimStart()) {
            System.err.println(
                    "[sluice] already running in this JVM; ignoring this " + (lateAttach ? "attach" : "start"));
            return;
        }
        StartingGovernance starting = null;
        try {
            AgentArgs args = AgentArgs.parse(rawArgs);
            AgentLog.configure(args.get("log"));
            // At premain the governor is built after the hooks, on its own thread; a call that comes first waits
            // for it. A late attach builds it here: the application is running and asks for it at once.
            starting = lateAttach ? null : new StartingGovernance(StartingGovernance.configuredWaitMillis());
            if (starting != null) {
                Bridge.install(starting);
                System.setProperty(STATE_PROPERTY, "starting " + AgentVersion.get());
            }

            ClassLoader agentLoader = AgentStartup.class.getClassLoader();
            List<String> failures = new ArrayList<>();
            List<InstrumentationModule> modules = InstrumentationCatalog.load(failures);
            Hooks.install(
                    new HelperHookFactory(modules, agentLoader, HELPER_ROOT, new AgentModuleExports(instrumentation)));
            for (InstrumentationModule module : modules) {
                for (String client : module.governedClients()) {
                    dev.sluice.bootstrap.Connections.governedClient(client);
                }
            }
            HookTransformer transformer = Installer.install(instrumentation, modules, agentLoader, lateAttach);
            StringJoiner names = new StringJoiner(",");
            for (InstrumentationModule module : modules) {
                names.add(module.name());
            }
            Completion completion =
                    new Completion(args, lateAttach, names.toString(), failures, starting, startedNanos);
            if (starting == null) {
                completion.run();
            } else {
                completion.startInBackground();
            }
            boolean warmUp = !"false".equalsIgnoreCase(args.get("warmup"));
            if (warmUp || !lateAttach) {
                startWarmUp(instrumentation, transformer, !lateAttach, warmUp);
            }
            if (AgentLog.isDebug()) {
                long micros = (System.nanoTime() - startedNanos) / 1000;
                AgentLog.get().debug("hooks installed in {} us ({})", micros, lateAttach ? "late attach" : "premain");
            }
        } catch (Throwable failure) {
            try {
                Bridge.install(Governance.PASS_THROUGH);
                if (starting != null) {
                    starting.ready(Governance.PASS_THROUGH); // a hook installed already must not wait
                }
            } catch (Throwable ignored) {
                // the bridge itself is unusable: nothing is governed either way
            }
            System.err.println("[sluice] failed to start, the JVM runs ungoverned: " + failure);
            System.setProperty(STATE_PROPERTY, "ungoverned " + AgentVersion.get() + " failed to start: " + failure);
        }
    }

    /**
     * What follows the hooks: the configuration, the governor behind the bridge, JMX, the start
     * line. Run on the {@code sluice-start} daemon thread after {@code premain} (it ends when done),
     * or inline on a late attach. Always releases the calls waiting in {@link StartingGovernance}.
     */
    private static final class Completion implements Runnable {
        /** Test only: how long {@code sluice-start} sleeps before it builds the governor. */
        static final String TEST_DELAY_PROPERTY = "dev.sluice.agent.test.startDelayMillis";

        private final AgentArgs args;
        private final boolean lateAttach;
        private final String instrumentations;
        private final List<String> failures;
        private final StartingGovernance starting;
        private final long startedNanos;

        Completion(
                AgentArgs args,
                boolean lateAttach,
                String instrumentations,
                List<String> failures,
                StartingGovernance starting,
                long startedNanos) {
            this.args = args;
            this.lateAttach = lateAttach;
            this.instrumentations = instrumentations;
            this.failures = failures;
            this.starting = starting;
            this.startedNanos = startedNanos;
        }

        void startInBackground() {
            Thread thread = new Thread(this, "sluice-start");
            thread.setDaemon(true);
            starting.builtBy(thread);
            // A JVM that ends before the governor is built still prints its one start line
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            new Runnable() { // not a lambda: no lambda bootstrap on premain
                                @Override
                                public void run() {
                                    exitBeforeStart();
                                }
                            },
                            "sluice-start-at-exit"));
            thread.start();
        }

        @Override
        public void run() {
            Governance installed = Governance.PASS_THROUGH;
            try {
                Long delay = starting == null ? null : Long.getLong(TEST_DELAY_PROPERTY);
                if (delay != null && delay > 0) {
                    Thread.sleep(delay);
                }
                GovernanceWiring wiring = installGovernance(args, starting);
                installed = wiring.governance;
                if (starting != null) {
                    starting.ready(installed);
                }
                if (runtime != null) {
                    JmxRegistration.start(runtime, sources, lateAttach);
                    if (runtime.config().metrics().enabled()) {
                        // only then: with metrics off, not one class of the exporter is loaded
                        dev.sluice.agent.metrics.MetricsExport.start(runtime, AgentVersion.get());
                    }
                }
                String state = (wiring.problem == null ? "running " : "ungoverned ") + AgentVersion.get()
                        + " mode=" + wiring.mode + " config=" + wiring.configSource + " start="
                        + (lateAttach ? "attach" : "premain")
                        + (wiring.problem == null ? "" : "\n" + wiring.problem);
                if (claimStartLine()) {
                    System.err.println("[sluice] " + AgentVersion.get() + " mode=" + wiring.mode + " config="
                            + wiring.configSource + " instrumentations=" + instrumentations);
                }
                System.setProperty(STATE_PROPERTY, state);
                for (String failure : failures) {
                    AgentLog.get().warn("instrumentation not installed: {}", failure);
                }
                if (AgentLog.isDebug()) {
                    long micros = (System.nanoTime() - startedNanos) / 1000;
                    AgentLog.get()
                            .debug("governor ready {} us after {}", micros, lateAttach ? "the attach" : "premain");
                }
                preparePrices();
            } catch (Throwable failure) {
                if (installed == Governance.PASS_THROUGH) {
                    Bridge.replace(starting == null ? Bridge.governance() : starting, Governance.PASS_THROUGH);
                }
                if (claimStartLine()) {
                    System.err.println("[sluice] failed to start, the JVM runs ungoverned: " + failure);
                }
                System.setProperty(STATE_PROPERTY, "ungoverned " + AgentVersion.get() + " failed to start: " + failure);
            } finally {
                if (starting != null) {
                    starting.ready(installed);
                }
            }
        }

        /**
         * Reads the price table once the governor serves calls, so a first call does not wait for
         * it (a call settling meanwhile waits for this thread's table, not a second one). Optional:
         * a failure here leaves the calls to read it themselves and must not mark the agent as
         * failed to start.
         */
        private void preparePrices() {
            SluiceRuntime served = runtime;
            if (served == null) {
                return;
            }
            try {
                long began = System.nanoTime();
                served.governance().preparePrices();
                if (AgentLog.isDebug()) {
                    AgentLog.get().debug("price table read in {} us", (System.nanoTime() - began) / 1000);
                }
            } catch (RuntimeException failed) {
                AgentLog.get().warn("the price table could not be read at start; calls will try again", failed);
            }
        }

        /** The shutdown hook of a JVM that ends before {@code sluice-start} is done: no call was governed. */
        private void exitBeforeStart() {
            if (!starting.isReady() && claimStartLine()) {
                System.err.println("[sluice] " + AgentVersion.get() + " instrumentations=" + instrumentations
                        + ": the JVM exits before the governor was built; no call was governed");
            }
        }
    }

    /** Guarded by the class: exactly one start line per JVM, from whichever of start and exit comes first. */
    private static boolean startLinePrinted;

    private static synchronized boolean claimStartLine() {
        if (startLinePrinted) {
            return false;
        }
        startLinePrinted = true;
        return true;
    }

    /**
     * Readies the weaver on a short-lived, low-priority daemon thread started here, off the host's
     * start-up path; the thread ends when done, so no agent thread stays. ByteBuddy's first weave
     * loads ~600 classes and runs them interpreted (100 to 200 ms of CPU): done here while the
     * application starts, a service whose first LLM call comes a second or more after start does
     * not pay it on that call, and one that calls at once finds part of it done. After
     * {@code premain} it first retransforms the hooked classes the JVM loaded before the agent
     * (JDK 25 loads {@code sun.nio.ch.SocketChannelImpl} that early), whatever {@code warmup}
     * says; {@code warmup=false} leaves the rest to the first hooked class.
     */
    private static void startWarmUp(
            Instrumentation instrumentation, HookTransformer transformer, boolean retransform, boolean warmUp) {
        Thread warmUpThread = new Thread(
                new Runnable() {
                    @Override
                    public void run() {
                        try {
                            long started = System.nanoTime();
                            int retransformed = retransform
                                    ? Installer.retransformLoaded(instrumentation, transformer.hookedTypeNames())
                                    : 0;
                            if (AgentLog.isDebug() && retransformed > 0) {
                                AgentLog.get()
                                        .debug(
                                                "retransformed {} classes loaded before premain in {} us",
                                                retransformed,
                                                (System.nanoTime() - started) / 1000);
                            }
                            if (warmUp) {
                                long micros = transformer.warmUp();
                                // unguarded, the debug line alone started SLF4J: ~10 ms of CPU
                                if (AgentLog.isDebug()) {
                                    AgentLog.get().debug("weaver warmed up in {} us", micros);
                                }
                            }
                        } catch (Throwable fault) {
                            Bridge.hookFault("warm-up", fault);
                        }
                    }
                },
                "sluice-warmup");
        warmUpThread.setDaemon(true);
        warmUpThread.setPriority(Thread.MIN_PRIORITY);
        warmUpThread.start();
    }

    private static synchronized boolean claimStart() {
        if (started) {
            return false;
        }
        started = true;
        return true;
    }

    /** The running governor, for JMX and the status commands; null until started or when config was invalid. */
    private static volatile SluiceRuntime runtime;

    static SluiceRuntime runtime() {
        return runtime;
    }

    /** Where the running configuration was loaded from: a JMX reload loads it again from there. */
    private static volatile ConfigSources sources;

    /**
     * Plugs the governor in behind the bridge: loads the configuration (agent options, then
     * {@code -Dsluice.*}, then {@code SLUICE_*}, then the file, then defaults), starts the governor
     * and installs its governance. An invalid configuration is reported field by field and the
     * JVM runs ungoverned: a typo must never take the host down.
     */
    static GovernanceWiring installGovernance(AgentArgs args, Governance expected) {
        SluiceConfig config;
        long began = System.nanoTime();
        ConfigSources loadedFrom = ConfigSources.fromRuntime(configArguments(args));
        try {
            config = ConfigLoader.load(loadedFrom);
        } catch (ConfigException invalid) {
            install(expected, Governance.PASS_THROUGH);
            System.err.println("[sluice] invalid configuration, the JVM runs ungoverned until it is fixed:");
            System.err.println(invalid.getMessage());
            return new GovernanceWiring(
                    "off", "invalid", "invalid configuration:\n" + invalid.getMessage(), Governance.PASS_THROUGH);
        }
        if (args.get("log") == null) {
            AgentLog.configure(config.logLevel().configName());
        }
        long configured = System.nanoTime();
        SluiceRuntime started = SluiceRuntime.start(config);
        if (AgentLog.isDebug()) {
            AgentLog.get()
                    .debug(
                            "configuration read in {} us, governor built in {} us",
                            (configured - began) / 1000,
                            (System.nanoTime() - configured) / 1000);
        }
        sources = loadedFrom;
        runtime = started;
        keepState(started, config);
        install(expected, started.governance());
        printDecisionsAtExit(started);
        return new GovernanceWiring(config.mode().configName(), config.origin(), null, started.governance());
    }

    /** Into the bridge, unless something other than {@code expected} (when given) was installed meanwhile. */
    private static void install(Governance expected, Governance governance) {
        if (expected == null) {
            Bridge.install(governance);
        } else {
            Bridge.replace(expected, governance);
        }
    }

    /**
     * The state file ({@code stateFile}): restored before the first call, saved while calls flow
     * and when the JVM exits. Never fatal: a file that cannot be read or written costs a log line.
     */
    private static void keepState(SluiceRuntime started, SluiceConfig config) {
        try {
            java.nio.file.Path file = StateFiles.resolve(config.stateFile());
            if (file == null) {
                return;
            }
            started.keepState(file);
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            new Runnable() {
                                @Override
                                public void run() {
                                    started.saveState();
                                }
                            },
                            "sluice-state-at-exit"));
        } catch (RuntimeException e) {
            System.err.println("[sluice] no state file: " + e);
        }
    }

    /**
     * {@code -Ddev.sluice.debug.decisions=N}: prints the governor's last N explained decisions to
     * stderr when the JVM exits (waits, rejections, provider refusals, retries). A debugging aid
     * for runs too short to open JMX on.
     */
    private static void printDecisionsAtExit(SluiceRuntime started) {
        Integer n = Integer.getInteger("dev.sluice.debug.decisions");
        if (n == null || n <= 0) {
            return;
        }
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        new Runnable() {
                            @Override
                            public void run() {
                                java.util.List<dev.sluice.core.telemetry.Decision> recent =
                                        started.governor().stats().decisions().recent(n);
                                for (int i = recent.size() - 1; i >= 0; i--) {
                                    System.err.println("[sluice] decision " + recent.get(i));
                                }
                            }
                        },
                        "sluice-decisions-at-exit"));
    }

    /**
     * The agent options the configuration understands: {@code log} is the config's
     * {@code logLevel}; {@code warmup} is the agent's own.
     */
    static String configArguments(AgentArgs args) {
        StringJoiner joined = new StringJoiner(",");
        for (Map.Entry<String, String> e : args.asMap().entrySet()) {
            String key = e.getKey();
            if (key.equals("warmup")) {
                continue;
            }
            joined.add((key.equals("log") ? "logLevel" : key) + "=" + e.getValue());
        }
        return joined.length() == 0 ? null : joined.toString();
    }

    /** What the start line reports about the installed governance. */
    static final class GovernanceWiring {
        final String mode;
        final String configSource;
        /** Why the JVM runs ungoverned, or null. */
        final String problem;
        /** What serves the calls: the governor's governance, or {@link Governance#PASS_THROUGH}. */
        final Governance governance;

        GovernanceWiring(String mode, String configSource, String problem, Governance governance) {
            this.mode = mode;
            this.configSource = configSource;
            this.problem = problem;
            this.governance = governance;
        }
    }
}
