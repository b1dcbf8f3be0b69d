package dev.sluice.bootstrap;

/**
 * The library side of a hooked method, reached by advice through {@link Hooks}. An instance lives
 * in the hooked library's class-loader world (so it may be typed against the library) and is
 * seen by advice only through this bootstrap interface, whose signature uses JDK types only.
 */
public interface Hook {

    /**
     * Called on entry of a hooked method.
     *
     * @param site which hooked method, numbered by the instrumentation that owns the hook
     * @param self the receiver of the hooked method
     * @param args the arguments of the hooked method
     * @return {@code null} to let the hooked method run as usual, or the outcome that replaces
     *     it: its response is returned (or its failure thrown) without running the method body
     */
    CallOutcome enter(int site, Object self, Object[] args);
}
