package dev.sluice.bootstrap;

/**
 * Where advice finds the {@link Hook} of the class it is inlined into.
 *
 * <p>Hooks are cached in a {@link ClassValue} keyed by the hooked class. A class value's entries
 * hang off the {@link Class} itself, so a hook (and the helper class loader it was defined in,
 * whose parent is the library's loader) is reachable only while the library's classes are: no
 * static of the agent ever holds an application class loader.
 */
public final class Hooks {

    private static volatile HookFactory factory;

    private static final ClassValue<Hook> HOOKS = new ClassValue<Hook>() {
        @Override
        protected Hook computeValue(Class<?> hookedType) {
            HookFactory current = factory;
            if (current == null) {
                return NONE;
            }
            try {
                Hook hook = current.create(hookedType);
                return hook == null ? NONE : hook;
            } catch (Throwable fault) {
                Bridge.hookFault("hook-create:" + hookedType.getName(), fault);
                return NONE;
            }
        }
    };

    /** Cached for classes whose hook could not be made: they always pass through. */
    private static final Hook NONE = new Hook() {
        @Override
        public CallOutcome enter(int site, Object self, Object[] args) {
            return null;
        }
    };

    private Hooks() {}

    /** Installs the factory; must happen before any instrumentation is installed. */
    public static void install(HookFactory hookFactory) {
        factory = hookFactory;
    }

    /**
     * The entry of every hooked method: {@code null} lets the method run as usual (Sluice's own
     * attempts, nothing governed, or a fault inside Sluice), otherwise the outcome replaces it.
     * Never throws.
     */
    public static CallOutcome enter(Class<?> hookedType, int site, Object self, Object[] args) {
        if (Bridge.isDispatching() || Bridge.governance() == Governance.PASS_THROUGH) {
            return null;
        }
        try {
            return HOOKS.get(hookedType).enter(site, self, args);
        } catch (Throwable fault) {
            Bridge.hookFault("hook:" + hookedType.getName() + "#" + site, fault);
            return null;
        }
    }

    /**
     * The entry of a hooked retry layer that sits inside Sluice's own attempts (an interceptor of
     * the HTTP client): like {@link #enter}, but also while Sluice is dispatching on this thread,
     * since that is exactly where such a layer runs. Never throws.
     */
    public static CallOutcome enterRetryLayer(Class<?> hookedType, int site, Object self, Object[] args) {
        if (Bridge.governance() == Governance.PASS_THROUGH) {
            return null;
        }
        try {
            return HOOKS.get(hookedType).enter(site, self, args);
        } catch (Throwable fault) {
            Bridge.hookFault("hook:" + hookedType.getName() + "#" + site, fault);
            return null;
        }
    }
}
