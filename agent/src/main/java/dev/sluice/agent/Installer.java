package dev.sluice.agent;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.instrumentation.api.InstrumentationModule;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Installs the instrumentations: one {@link HookTransformer}, registered for retransformation,
 * plus a retransformation of the hooked classes that are already loaded (late attach, a library
 * touched by another agent's premain, or a JDK class such as {@code sun.nio.ch.SocketChannelImpl}
 * that JDK 25 loads before {@code premain}). At {@code premain} that retransformation is left to
 * a background thread ({@link #retransformLoaded}): the first weave loads and runs the weaver cold,
 * time the host's start would otherwise wait for.
 */
final class Installer {

    private Installer() {}

    /** Installs the transformer; retransforms the hooked classes already loaded now only if {@code retransformNow}. */
    static HookTransformer install(
            Instrumentation instrumentation,
            List<InstrumentationModule> modules,
            ClassLoader agentLoader,
            boolean retransformNow) {
        openReadEdges(instrumentation);
        HookTransformer transformer = new HookTransformer(modules, agentLoader);
        instrumentation.addTransformer(transformer, true);
        if (retransformNow) {
            retransformLoaded(instrumentation, transformer.hookedTypeNames());
        }
        return transformer;
    }

    /** Retransforms the hooked classes that are loaded already; returns how many there were. */
    static int retransformLoaded(Instrumentation instrumentation, Set<String> hooked) {
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            if (hooked.contains(type.getName()) && instrumentation.isModifiableClass(type)) {
                loaded.add(type);
            }
        }
        for (Class<?> type : loaded) {
            try {
                instrumentation.retransformClasses(type);
            } catch (UnmodifiableClassException | RuntimeException | LinkageError e) {
                Bridge.hookFault("retransform:" + type.getName(), e);
                AgentLog.get().warn("could not retransform {}; it runs ungoverned", type.getName(), e);
            }
        }
        return loaded.size();
    }

    /**
     * Lets {@code java.net.http} and {@code java.base} read the bootstrap loader's unnamed module, where the bridge is:
     * advice inlined into a named module can only link to modules that module reads.
     */
    private static void openReadEdges(Instrumentation instrumentation) {
        Module bridge = Bridge.class.getModule();
        readBridge(
                instrumentation, ModuleLayer.boot().findModule("java.net.http").orElse(null), bridge);
        // java.net.Socket and sun.nio.ch.SocketChannelImpl (connections to provider hosts)
        readBridge(instrumentation, Object.class.getModule(), bridge);
    }

    private static void readBridge(Instrumentation instrumentation, Module reader, Module bridge) {
        if (reader != null && !reader.canRead(bridge)) {
            instrumentation.redefineModule(
                    reader,
                    Collections.singleton(bridge),
                    Collections.emptyMap(),
                    Collections.emptyMap(),
                    Collections.emptySet(),
                    Collections.emptyMap());
        }
    }
}
