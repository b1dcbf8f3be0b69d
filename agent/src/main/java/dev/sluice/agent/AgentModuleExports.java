package dev.sluice.agent;

import dev.sluice.instrumentation.api.ModuleExports;
import java.lang.instrument.Instrumentation;
import java.util.Collections;

/**
 * The exports instrumentations ask for, made through {@link Instrumentation#redefineModule}: one
 * package, to one module (a helper loader's unnamed module), never to everyone.
 */
final class AgentModuleExports implements ModuleExports {

    private final Instrumentation instrumentation;

    AgentModuleExports(Instrumentation instrumentation) {
        this.instrumentation = instrumentation;
    }

    @Override
    public void export(Module from, String packageName, Module to) {
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
}
