package dev.sluice.bootstrap;

/**
 * Creates the {@link Hook} for a hooked class: installed by the agent, which knows where the
 * helper classes of each instrumentation are and defines them next to the library.
 */
public interface HookFactory {

    /**
     * The hook for this instrumented class, or {@code null} when it has none. Called at most once
     * per class (the result is cached on the class), outside any class-file transformer.
     */
    Hook create(Class<?> hookedType);
}
