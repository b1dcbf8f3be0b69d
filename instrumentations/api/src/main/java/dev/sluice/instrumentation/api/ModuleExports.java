package dev.sluice.instrumentation.api;

/**
 * Exports a package of a named module to one other module, as only the agent can
 * ({@code Instrumentation.redefineModule}): what {@link InstrumentationModule#packagesExportedToHelpers()}
 * asks for.
 */
public interface ModuleExports {

    /** Exports nothing: helpers then work without the package. */
    ModuleExports NONE = new ModuleExports() {
        @Override
        public void export(Module from, String packageName, Module to) {}
    };

    /**
     * Exports {@code packageName} of {@code from} to {@code to}; nothing when it already is.
     *
     * @throws RuntimeException when the JVM refuses it
     */
    void export(Module from, String packageName, Module to);
}
