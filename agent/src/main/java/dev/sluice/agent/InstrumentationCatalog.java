package dev.sluice.agent;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The instrumentations this agent ships, by class name. An explicit list rather than a
 * {@code ServiceLoader}: a service lookup scans every jar of the application's class path at
 * start-up, and the set is fixed at build time anyway. A module that fails to load is skipped
 * and reported; the others still install.
 */
final class InstrumentationCatalog {

    private static final List<String> MODULES = Collections.unmodifiableList(Arrays.asList(
            "dev.sluice.instrumentation.jdkhttp.JdkHttpClientInstrumentation",
            "dev.sluice.instrumentation.okhttp.OkHttpInstrumentation"));

    private InstrumentationCatalog() {}

    static List<InstrumentationModule> load(ClassLoader agentLoader, List<String> failures) {
        List<InstrumentationModule> modules = new ArrayList<>(MODULES.size());
        for (String name : MODULES) {
            try {
                modules.add((InstrumentationModule) Class.forName(name, true, agentLoader)
                        .getConstructor().newInstance());
            } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
                failures.add(name + ": " + e);
            }
        }
        return modules;
    }
}
