package dev.sluice.agent;

import dev.sluice.instrumentation.api.ModuleExports;
import java.lang.instrument.Instrumentation;
import java.util.Collections;

/**
 * Qualified exports and opens made through {@link Instrumentation#redefineModule}: one package, to
 * one module, never to everyone. For the instrumentations that ask for one (to their helper
 * loader's unnamed module) and for the agent's own bridge definer ({@code jdk.internal.misc}).
 */
final class AgentModuleExports implements ModuleExports {

    private final Instrumentation instrumentation;

    AgentModuleExports(Instrumentation instrumentation) {
        this.instrumentation = instrumentation;
    }

    /** Does nothing when {@code from} already exports the package to {@code to}. */
    @Override
    public void export(Module from, String packageName, Module to) {
        if (from.isExported(packageName, to)) {
            return;
        }
        instrumentation.redefineModule(
                from,
                Collections.<Module>emptySet(),
                Collections.singletonMap(packageName, Collections.singleton(to)),
                Collections.<String, java.util.Set<Module>>emptyMap(),
                Collections.<Class<?>>emptySet(),
                Collections.<Class<?>, java.util.List<Class<?>>>emptyMap());
        if (AgentLog.isDebug()) {
            AgentLog.get().debug("exported {}/{} to {}", from.getName(), packageName, to);
        }
    }

    /** Does nothing when {@code from} already opens the package to {@code to}. */
    @Override
    public void open(Module from, String packageName, Module to) {
        if (from.isOpen(packageName, to)) {
            return;
        }
        instrumentation.redefineModule(
                from,
                Collections.<Module>emptySet(),
                Collections.<String, java.util.Set<Module>>emptyMap(),
                Collections.singletonMap(packageName, Collections.singleton(to)),
                Collections.<Class<?>>emptySet(),
                Collections.<Class<?>, java.util.List<Class<?>>>emptyMap());
        if (AgentLog.isDebug()) {
            AgentLog.get().debug("opened {}/{} to {}", from.getName(), packageName, to);
        }
    }
}
