package dev.sluice.instrumentation.api;

/**
 * Exports or opens a package of a named module to one other module, as only the agent can
 * ({@code Instrumentation.redefineModule}): the agent's own exports, and what {@link
 * InstrumentationModule#packagesOpenedToHelpers()} asks for.
 */
public interface ModuleExports {

    /** Exports and opens nothing: helpers then work without the package. */
    ModuleExports NONE = new ModuleExports() {
        @Override
        public void export(Module from, String packageName, Module to) {}

        @Override
        public void open(Module from, String packageName, Module to) {}
    };

    /**
     * Exports {@code packageName} of {@code from} to {@code to}; nothing when it already is.
     *
     * @throws RuntimeException when the JVM refuses it
     */
    void export(Module from, String packageName, Module to);

    /**
     * Opens {@code packageName} of {@code from} to {@code to} (deep reflection on its members;
     * it is then exported at run time too); nothing when it already is.
     *
     * @throws RuntimeException when the JVM refuses it
     */
    void open(Module from, String packageName, Module to);
}
