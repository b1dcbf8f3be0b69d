package dev.sluice.agent;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.instrumentation.api.InstrumentationModule;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's only class-file transformer.
 *
 * <p>Every class the JVM loads passes through {@link #transform}: all but the few hooked classes
 * leave after one hash lookup of their name, so installing it costs nothing at start-up and
 * ByteBuddy is not even loaded by it until a hooked library is (the {@code sluice-warmup} thread
 * loads it earlier: {@link #warmUp}). A hooked class is rewritten by {@link AdviceWeaver}, with
 * ByteBuddy's {@code Advice} inlined into the matched methods (no new members:
 * retransformation-safe) from class files only (nothing is loaded while transforming). A failure
 * leaves the class untouched and is counted.
 */
final class HookTransformer implements ClassFileTransformer {

    /** The module owning each hooked class, by internal name. */
    private final Map<String, InstrumentationModule> byInternalName = new HashMap<>();

    private final ClassLoader agentLoader;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();
    /** Made on first use, by the warm-up or the first hooked class: until then no ByteBuddy class is loaded. */
    private volatile AdviceWeaver weaver;

    HookTransformer(List<InstrumentationModule> modules, ClassLoader agentLoader) {
        this.agentLoader = agentLoader;
        for (InstrumentationModule module : modules) {
            for (String type : module.hookedTypeNames()) {
                byInternalName.put(type.replace('.', '/'), module);
            }
        }
    }

    /** Binary names of the hooked classes. */
    Set<String> hookedTypeNames() {
        Set<String> names = new java.util.HashSet<>();
        for (String internal : byInternalName.keySet()) {
            names.add(internal.replace('/', '.'));
        }
        return names;
    }

    private AdviceWeaver weaver() {
        AdviceWeaver made = weaver;
        if (made == null) {
            synchronized (this) { // held while a pool is set up, never while weaving
                made = weaver;
                if (made == null) {
                    made = new AdviceWeaver(agentLoader);
                    weaver = made;
                }
            }
        }
        return made;
    }

    @Override
    public byte[] transform(
            Module module,
            ClassLoader loader,
            String className,
            Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain,
            byte[] classfileBuffer) {
        if (className == null) {
            return null;
        }
        InstrumentationModule owner = byInternalName.get(className);
        if (owner == null) {
            return null;
        }
        try {
            long started = System.nanoTime();
            AdviceWeaver current = weaver();
            AdviceWeaver.Woven woven = current.weave(className, loader, classfileBuffer, current.declarationsOf(owner));
            if (woven == null) {
                if (reported.add(className)) {
                    AgentLog.get()
                            .warn(
                                    "{} has no method the {} instrumentation hooks; it runs ungoverned",
                                    className,
                                    owner.name());
                }
                return null;
            }
            if (AgentLog.isDebug()) {
                long micros = (System.nanoTime() - started) / 1000;
                AgentLog.get()
                        .debug(
                                "instrumented {} in {} us ({}, {} methods)",
                                className,
                                micros,
                                owner.name(),
                                woven.methods);
            }
            return woven.classFile;
        } catch (Throwable failure) {
            Bridge.hookFault("transform:" + className, failure);
            if (reported.add(className)) {
                AgentLog.get().warn("could not instrument {}; it runs ungoverned", className, failure);
            }
            return null;
        }
    }

    /** The modules whose advice {@link WarmupTarget} is shaped for: weaving it runs the weaver's paths once. */
    private static final Set<String> WARM_UP_MODULES =
            new java.util.HashSet<>(java.util.Arrays.asList("okhttp", "jdk-http-client"));

    /**
     * Readies the weaver: loads ByteBuddy and reads the advice of the modules {@link WarmupTarget}
     * is shaped for, weaves that class with it (throwing the result away), then reads every other
     * module's advice. The weave comes first because it loads and runs nearly all of what any
     * first weave needs, which an application calling at once is waiting for; the other modules'
     * advice (a few milliseconds) after. A module whose advice cannot be read is reported and
     * skipped (its classes will be left untouched). Returns how long it took, in microseconds.
     */
    long warmUp() throws IOException {
        long started = System.nanoTime();
        AdviceWeaver current = weaver();
        List<InstrumentationModule> modules = new ArrayList<>(new java.util.LinkedHashSet<>(byInternalName.values()));
        List<AdviceWeaver.Declaration> shaped = new ArrayList<>();
        for (InstrumentationModule module : modules) {
            if (WARM_UP_MODULES.contains(module.name())) {
                shaped.addAll(declarationsOrNone(current, module));
            }
        }
        String target = WarmupTarget.class.getName().replace('.', '/');
        current.weave(target, agentLoader, classFile(target), shaped);
        for (InstrumentationModule module : modules) {
            if (!WARM_UP_MODULES.contains(module.name())) {
                declarationsOrNone(current, module);
            }
        }
        return (System.nanoTime() - started) / 1000;
    }

    private static List<AdviceWeaver.Declaration> declarationsOrNone(
            AdviceWeaver weaver, InstrumentationModule module) {
        try {
            return weaver.declarationsOf(module);
        } catch (RuntimeException | LinkageError unreadable) {
            Bridge.hookFault("warm-up:" + module.name(), unreadable);
            AgentLog.get().warn("could not read the advice of the {} instrumentation", module.name(), unreadable);
            return java.util.Collections.emptyList();
        }
    }

    private byte[] classFile(String internalName) throws IOException {
        try (InputStream in = agentLoader.getResourceAsStream(internalName + ".class")) {
            if (in == null) {
                throw new IOException(internalName + " is missing from the agent");
            }
            return in.readAllBytes();
        }
    }
}
