package dev.sluice.instrumentation.api;

import dev.sluice.bootstrap.Hook;
import dev.sluice.bootstrap.HookFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes the {@link Hook} of a hooked class: defines the owning instrumentation's helpers in a
 * {@link HelperClassLoader} whose parent is the class's own loader, and instantiates the hook
 * there. Called lazily, on the first hooked call of each copy of a library, never inside a
 * class-file transformer; {@code dev.sluice.bootstrap.Hooks} caches the result on the class.
 */
public final class HelperHookFactory implements HookFactory {

    private final Map<String, InstrumentationModule> byHookedType = new HashMap<>();
    private final ClassLoader bytesLoader;
    private final String resourceRoot;
    private final ModuleExports exports;

    /**
     * @param modules the installed instrumentations
     * @param bytesLoader the loader holding the helper bytes (the agent's)
     * @param resourceRoot where helper bytes of module {@code m} are: {@code resourceRoot + m.name() + "/"};
     *     {@code null} when helpers are ordinary class files of {@code bytesLoader} (tests)
     */
    public HelperHookFactory(List<InstrumentationModule> modules, ClassLoader bytesLoader, String resourceRoot) {
        this(modules, bytesLoader, resourceRoot, ModuleExports.NONE);
    }

    /**
     * @param exports how the packages a module asks for ({@link
     *     InstrumentationModule#packagesOpenedToHelpers()}) are opened to its helpers
     */
    public HelperHookFactory(
            List<InstrumentationModule> modules, ClassLoader bytesLoader, String resourceRoot, ModuleExports exports) {
        for (InstrumentationModule module : modules) {
            for (String type : module.hookedTypeNames()) {
                byHookedType.put(type, module);
            }
        }
        this.bytesLoader = bytesLoader;
        this.resourceRoot = resourceRoot;
        this.exports = exports;
    }

    @Override
    public Hook create(Class<?> hookedType) {
        InstrumentationModule module = byHookedType.get(hookedType.getName());
        if (module == null) {
            return null;
        }
        String prefix = resourceRoot == null ? "" : resourceRoot + module.name() + "/";
        HelperClassLoader helpers =
                new HelperClassLoader(hookedType.getClassLoader(), module.helperPackage(), bytesLoader, prefix);
        openTo(helpers, module, hookedType.getModule());
        try {
            Class<?> hookClass = Class.forName(module.hookClassName(), true, helpers);
            return (Hook) hookClass.getConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException(
                    "cannot define the " + module.name() + " helpers next to " + hookedType.getName() + " in "
                            + hookedType.getClassLoader(),
                    e);
        }
    }

    /** Before any helper is defined: a helper type implementing an interface of a package is checked when it is defined. */
    private void openTo(HelperClassLoader helpers, InstrumentationModule module, Module library) {
        if (!library.isNamed()) {
            return;
        }
        Module helperModule = helpers.getUnnamedModule();
        for (String packageName : module.packagesOpenedToHelpers()) {
            try {
                exports.open(library, packageName, helperModule);
            } catch (RuntimeException refused) {
                // the helpers do without it
            }
        }
    }
}
