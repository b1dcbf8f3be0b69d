package dev.sluice.agent;

import dev.sluice.bootstrap.Bridge;
import dev.sluice.instrumentation.api.InstrumentationModule;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.scaffold.TypeInitializer;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.implementation.auxiliary.AuxiliaryType;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

/**
 * The agent's only class-file transformer.
 *
 * <p>Every class the JVM loads passes through {@link #transform}: all but the few hooked classes
 * leave after one hash lookup of their name, so installing it costs nothing at start-up and
 * ByteBuddy is not even loaded until a hooked library is. A hooked class is rewritten with
 * ByteBuddy's {@link Advice} (inlined, no new members: retransformation-safe), reading types from
 * class files only (nothing is loaded while transforming). A failure leaves the class untouched
 * and is counted.
 */
final class HookTransformer implements ClassFileTransformer {

    /** The module owning each hooked class, by internal name. */
    private final Map<String, InstrumentationModule> byInternalName = new HashMap<>();
    /** Advice declarations per module, made on first use so start-up loads no ByteBuddy matcher. */
    private final Map<InstrumentationModule, List<Declaration>> declarations = new ConcurrentHashMap<>();

    private final ClassLoader agentLoader;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    private static final class Declaration {
        final ElementMatcher<? super MethodDescription> methods;
        final String adviceClassName;

        Declaration(ElementMatcher<? super MethodDescription> methods, String adviceClassName) {
            this.methods = methods;
            this.adviceClassName = adviceClassName;
        }
    }

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

    private List<Declaration> declarationsOf(InstrumentationModule module) {
        return declarations.computeIfAbsent(module, m -> {
            List<Declaration> declared = new ArrayList<>();
            m.declareAdvice((methods, adviceClassName) -> declared.add(new Declaration(methods, adviceClassName)));
            return Collections.unmodifiableList(declared);
        });
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
            byte[] rewritten = rewrite(className.replace('/', '.'), loader, classfileBuffer, declarationsOf(owner));
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

    /**
     * Weaves {@link WarmupTarget} with the advice of the modules it is shaped for and throws the
     * result away: loads and runs ByteBuddy once so the first library class woven on an
     * application thread costs tens of milliseconds instead of hundreds. Not every module's
     * advice: the weaver's classes are the same for all, and parsing advice the application may
     * never need is CPU taken from its start on a small machine. Returns how long it took, in
     * microseconds.
     */
    long warmUp() throws Exception {
        long started = System.nanoTime();
        String name = WarmupTarget.class.getName();
        byte[] bytes;
        try (java.io.InputStream in = agentLoader.getResourceAsStream(name.replace('.', '/') + ".class")) {
            bytes = in.readAllBytes();
        }
        List<Declaration> some = new ArrayList<>();
        for (InstrumentationModule module : new java.util.LinkedHashSet<>(byInternalName.values())) {
            if (WARM_UP_MODULES.contains(module.name())) {
                some.addAll(declarationsOf(module));
            }
        }
        rewrite(name, agentLoader, bytes, some);
        return (System.nanoTime() - started) / 1000;
    }

    private byte[] rewrite(String name, ClassLoader loader, byte[] bytes, List<Declaration> declared) throws Exception {
        Weaver current = weaver;
        if (current == null) {
            current = new Weaver(agentLoader);
            weaver = current;
        }
        return current.rewrite(name, loader, bytes, declared);
    }

    /** Created on the first hooked class: until then no ByteBuddy class is loaded, not even for verification. */
    private volatile Weaver weaver;

    /** Inlines advice into one class with ByteBuddy's Advice over ASM, reading types from class files only. */
    private static final class Weaver {
        private final ClassLoader agentLoader;
        private final ClassFileLocator bridgeClasses;

        Weaver(ClassLoader agentLoader) throws java.io.IOException {
            this.agentLoader = agentLoader;
            this.bridgeClasses = readBridgeClasses(agentLoader);
        }

        /**
         * The bridge's class files. Classes appended to the bootstrap path at run time are invisible
         * to resource lookups, so they are read from the nested jar the agent appended.
         */
        private static ClassFileLocator readBridgeClasses(ClassLoader agentLoader) throws java.io.IOException {
            Map<String, byte[]> classes = new HashMap<>();
            try (java.util.jar.JarInputStream jar =
                    new java.util.jar.JarInputStream(agentLoader.getResourceAsStream(SluiceAgent.BOOTSTRAP_JAR))) {
                for (java.util.jar.JarEntry entry; (entry = jar.getNextJarEntry()) != null; ) {
                    String path = entry.getName();
                    if (path.endsWith(".class")) {
                        classes.put(path.substring(0, path.length() - 6).replace('/', '.'), jar.readAllBytes());
                    }
                }
            }
            return new ClassFileLocator.Simple(classes);
        }

        byte[] rewrite(String name, ClassLoader loader, byte[] bytes, List<Declaration> declarations) {
            ClassFileLocator agentClasses = ClassFileLocator.ForClassLoader.of(agentLoader);
            ClassFileLocator locator = new ClassFileLocator.Compound(
                    ClassFileLocator.Simple.of(name, bytes),
                    bridgeClasses,
                    loader == null
                            ? ClassFileLocator.ForClassLoader.ofBootLoader()
                            : ClassFileLocator.ForClassLoader.of(loader),
                    agentClasses);
            TypePool pool = TypePool.Default.of(locator);
            TypeDescription type = pool.describe(name).resolve();
            AsmVisitorWrapper.ForDeclaredMethods visitor = new AsmVisitorWrapper.ForDeclaredMethods();
            for (Declaration declaration : declarations) {
                TypeDescription advice =
                        pool.describe(declaration.adviceClassName).resolve();
                visitor = visitor.invokable(declaration.methods, Advice.to(advice, locator));
            }
            int writerFlags = visitor.mergeWriter(0);
            int readerFlags = visitor.mergeReader(0);
            if ((writerFlags & ClassWriter.COMPUTE_FRAMES) != 0) {
                throw new IllegalStateException("advice asks for frame computation, which would load classes");
            }
            // Straight ASM through the advice visitor: ByteBuddy's DynamicType machinery (twice the classes
            // to load on first use) is not needed to inline advice into an existing class.
            ClassReader reader = new ClassReader(bytes);
            ClassWriter writer = new ClassWriter(reader, writerFlags);
            ClassFileVersion version = ClassFileVersion.ofClassFile(bytes);
            Implementation.Context.ExtractableView context = Implementation.Context.Disabled.Factory.INSTANCE.make(
                    type,
                    new AuxiliaryType.NamingStrategy.Suffixing("sluice"),
                    TypeInitializer.None.INSTANCE,
                    version,
                    version);
            reader.accept(
                    visitor.wrap(
                            type,
                            writer,
                            context,
                            pool,
                            type.getDeclaredFields(),
                            type.getDeclaredMethods(),
                            writerFlags,
                            readerFlags),
                    readerFlags);
            return writer.toByteArray();
        }
    }
}
