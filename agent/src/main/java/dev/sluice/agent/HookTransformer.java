package dev.sluice.agent;

import dev.sluice.agent.weave.AdviceClass;
import dev.sluice.agent.weave.ClassWeaver;
import dev.sluice.bootstrap.Bridge;
import dev.sluice.instrumentation.api.InstrumentationModule;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's only class-file transformer.
 *
 * <p>Every class the JVM loads passes through {@link #transform}: all but the few hooked classes
 * leave after one hash lookup of their name, so installing it costs nothing at start-up and the
 * weaver (ASM) is not even loaded until a hooked library is. A hooked class is rewritten by
 * {@link ClassWeaver}, which copies the advice into the selected methods (no new members:
 * retransformation-safe) from class files only (nothing is loaded while transforming). A failure
 * leaves the class untouched and is counted.
 */
final class HookTransformer implements ClassFileTransformer {

    /** The module owning each hooked class, by internal name. */
    private final Map<String, InstrumentationModule> byInternalName = new HashMap<>();
    /** Advice declarations per module, read on first use: start-up reads no advice class file. */
    private final Map<InstrumentationModule, List<ClassWeaver.Declaration>> declarations = new ConcurrentHashMap<>();
    /** Advice classes by name, read once (one advice may serve several methods). */
    private final Map<String, AdviceClass> adviceClasses = new ConcurrentHashMap<>();

    private final ClassLoader agentLoader;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();
    /** Set once a hooked class was woven: the weaver has been loaded and run, warming it up is moot. */
    private volatile boolean wovenAny;

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

    private List<ClassWeaver.Declaration> declarationsOf(InstrumentationModule module) {
        List<ClassWeaver.Declaration> known = declarations.get(module);
        if (known != null) {
            return known;
        }
        List<ClassWeaver.Declaration> declared = new ArrayList<>();
        module.declareAdvice(
                new InstrumentationModule.AdviceSink() { // not a lambda: no class spun at start-up
                    @Override
                    public void advise(dev.sluice.instrumentation.api.MethodSelector methods, String adviceClassName) {
                        declared.add(new ClassWeaver.Declaration(methods, adviceClass(adviceClassName)));
                    }
                });
        List<ClassWeaver.Declaration> result = Collections.unmodifiableList(declared);
        declarations.putIfAbsent(module, result);
        return result;
    }

    private AdviceClass adviceClass(String name) {
        AdviceClass known = adviceClasses.get(name);
        if (known == null) {
            known = AdviceClass.read(name, classFile(name));
            adviceClasses.putIfAbsent(name, known);
        }
        return known;
    }

    private byte[] classFile(String name) {
        try (InputStream in = agentLoader.getResourceAsStream(name.replace('.', '/') + ".class")) {
            if (in == null) {
                throw new IllegalStateException("advice class " + name + " is missing from the agent");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read advice class " + name, e);
        }
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
            byte[] rewritten = ClassWeaver.weave(classfileBuffer, declarationsOf(owner));
            wovenAny = true;
            if (AgentLog.isDebug()) {
                long micros = (System.nanoTime() - started) / 1000;
                AgentLog.get().debug("instrumented {} in {} us ({})", className, micros, owner.name());
            }
            return rewritten;
        } catch (Throwable failure) {
            Bridge.hookFault("transform:" + className, failure);
            if (reported.add(className)) {
                AgentLog.get().warn("could not instrument {}; it runs ungoverned", className, failure);
            }
            return null;
        }
    }

    /** The modules whose advice {@link WarmupTarget} is shaped for: weaving it with them warms up the rest. */
    private static final Set<String> WARM_UP_MODULES =
            new java.util.HashSet<>(java.util.Arrays.asList("okhttp", "jdk-http-client"));

    /** Whether a hooked class has been woven since the agent started. */
    boolean wovenAny() {
        return wovenAny;
    }

    /**
     * Weaves {@link WarmupTarget} with the advice of the modules it is shaped for and throws the
     * result away: loads and runs the weaver once, and reads those modules' advice, so the first
     * library class woven on an application thread does not pay for it. Returns how long it took,
     * in microseconds.
     */
    long warmUp() throws IOException {
        long started = System.nanoTime();
        List<ClassWeaver.Declaration> some = new ArrayList<>();
        for (InstrumentationModule module : new java.util.LinkedHashSet<>(byInternalName.values())) {
            if (WARM_UP_MODULES.contains(module.name())) {
                some.addAll(declarationsOf(module));
            }
        }
        ClassWeaver.weave(classFile(WarmupTarget.class.getName()), some);
        return (System.nanoTime() - started) / 1000;
    }
}
