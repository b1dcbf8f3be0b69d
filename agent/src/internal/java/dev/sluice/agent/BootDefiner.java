package dev.sluice.agent;

/**
 * Defines a class in the bootstrap loader without touching the loader's search path. Compiled
 * apart from the rest of the agent (see the agent's pom: {@code --release 11} hides JDK internals)
 * against {@code jdk.internal.misc.Unsafe}, whose {@code defineClass} every JDK from 11 to 25 has;
 * {@link BootLoaderBridge} exports that package to the agent before this class is first linked.
 * A direct call rather than reflection: the first reflective call of a JVM spins method handles,
 * tens of milliseconds of the host's start-up.
 */
final class BootDefiner {

    private BootDefiner() {}

    static Class<?> define(String name, byte[] classFile) {
        return jdk.internal.misc.Unsafe.getUnsafe().defineClass(name, classFile, 0, classFile.length, null, null);
    }
}
