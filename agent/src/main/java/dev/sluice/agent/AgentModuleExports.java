package dev.sluice.agent;

import dev.sluice.instrumentation.api.ModuleExports;
import java.lang.instrument.Instrumentation;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
        if (!from.isExported(packageName, to)) {
            redefine(from, packageName, to, false);
        }
    }

    /** Does nothing when {@code from} already opens the package to {@code to}. */
    @Override
    public void open(Module from, String packageName, Module to) {
        if (!from.isOpen(packageName, to)) {
            redefine(from, packageName, to, true);
        }
    }

    private void redefine(Module from, String packageName, Module to, boolean open) {
        Map<String, Set<Module>> one = Collections.singletonMap(packageName, Collections.singleton(to));
        Map<String, Set<Module>> none = Collections.emptyMap();
        instrumentation.redefineModule(
                from,
                Collections.<Module>emptySet(),
                open ? none : one,
                open ? one : none,
                Collections.<Class<?>>emptySet(),
                Collections.<Class<?>, List<Class<?>>>emptyMap());
        if (AgentLog.isDebug()) {
            AgentLog.get().debug("{} {}/{} to {}", open ? "opened" : "exported", from.getName(), packageName, to);
        }
    }
}
