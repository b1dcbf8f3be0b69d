package dev.sluice.agent;

import dev.sluice.instrumentation.api.InstrumentationModule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.scaffold.TypeInitializer;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.implementation.auxiliary.AuxiliaryType;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.utility.AsmClassReader;
import net.bytebuddy.utility.OpenedClassReader;

/**
 * Weaves the instrumentations' advice into the hooked classes with ByteBuddy's {@link Advice}:
 * ASM reads the class, each method a module's matcher selects goes through its {@code Advice}'s
 * method visitor, and ASM writes the class back. No member is added, so a retransformation may
 * apply it too; no class is loaded to weave: the hooked class and the types ByteBuddy asks about
 * are described from class files ({@link TypePool}), and ByteBuddy writes every stack map frame
 * from those descriptions, never by computing common super types.
 *
 * <p>Built once, by whichever comes first of the {@code sluice-warmup} thread and the first hooked
 * class, and kept for the agent's life: the type pool over the agent's own class files (the advice
 * classes, ByteBuddy's annotations) with what it parsed, one {@code Advice} per advice class (its
 * class file read and its annotations resolved once), one list of declarations per module. A
 * hooked class costs one small pool over its own bytes and its loader's class files, read as
 * ByteBuddy asks (it asks for the return type of a method whose value the advice may replace).
 *
 * <p>Thread-safe: two threads may build the same module's declarations at once, and one of the
 * two results is kept.
 */
final class AdviceWeaver {

    /**
     * ASM's reader, never the JDK's class-file API (ByteBuddy's bridge to it is not in the agent
     * jar), in ByteBuddy's experimental mode: a class file newer than ByteBuddy knows is read as the
     * newest version it knows and written back with its own version.
     */
    private static final AsmClassReader.Factory READER = new AsmClassReader.Factory() {
        @Override
        public AsmClassReader make(byte[] classFile) {
            return make(classFile, true);
        }

        @Override
        public AsmClassReader make(byte[] classFile, boolean experimental) {
            return AsmClassReader.Factory.Default.ASM_ONLY.make(classFile, true);
        }
    };

    /** ByteBuddy computes the woven methods' maxima and frames itself; ASM computes nothing. */
    private static final int WRITER_FLAGS = 0;

    private static final int READER_FLAGS = 0;

    /** Never used: {@code Advice} inlines its code and adds no auxiliary type. */
    private static final AuxiliaryType.NamingStrategy NO_AUXILIARY_TYPES =
            new AuxiliaryType.NamingStrategy.Suffixing("sluice");

    /** Which methods take which advice. */
    static final class Declaration {
        final ElementMatcher<? super MethodDescription> methods;
        final String adviceClassName;
        final Advice advice;

        Declaration(ElementMatcher<? super MethodDescription> methods, String adviceClassName, Advice advice) {
            this.methods = methods;
            this.adviceClassName = adviceClassName;
            this.advice = advice;
        }
    }

    /** A woven class file, and how many of its methods took advice. */
    static final class Woven {
        final byte[] classFile;
        final int methods;

        Woven(byte[] classFile, int methods) {
            this.classFile = classFile;
            this.methods = methods;
        }
    }

    private final ClassFileLocator agentClasses;
    private final TypePool agentPool;
    private final Map<String, Advice> adviceByClass = new ConcurrentHashMap<>();
    private final Map<InstrumentationModule, List<Declaration>> declarations = new ConcurrentHashMap<>();

    AdviceWeaver(ClassLoader agentLoader) {
        agentClasses = ClassFileLocator.ForClassLoader.of(agentLoader);
        agentPool = new TypePool.Default.WithLazyResolution(
                new TypePool.CacheProvider.Simple(), agentClasses, TypePool.Default.ReaderMode.FAST, READER);
    }

    /** The module's declarations, made (its advice classes read) on first use. */
    List<Declaration> declarationsOf(InstrumentationModule module) {
        List<Declaration> known = declarations.get(module);
        if (known != null) {
            return known;
        }
        List<Declaration> declared = new ArrayList<>();
        module.declareAdvice(
                new InstrumentationModule.AdviceSink() { // not a lambda: no class spun at start-up
                    @Override
                    public void advise(ElementMatcher<? super MethodDescription> methods, String adviceClassName) {
                        declared.add(new Declaration(methods, adviceClassName, advice(adviceClassName)));
                    }
                });
        List<Declaration> made = Collections.unmodifiableList(declared);
        known = declarations.putIfAbsent(module, made);
        return known == null ? made : known;
    }

    private Advice advice(String className) {
        Advice known = adviceByClass.get(className);
        if (known == null) {
            TypeDescription adviceType = agentPool.describe(className).resolve();
            known = Advice.withCustomMapping().with(READER).to(adviceType, agentClasses);
            adviceByClass.putIfAbsent(className, known);
        }
        return known;
    }

    /**
     * The class with its advice woven in, or {@code null} when no method of it is matched.
     *
     * @param internalName the class's name as the JVM hands it to a transformer ({@code a/b/C})
     * @param loader its defining loader ({@code null}: the bootstrap loader), whose class files
     *     describe the types ByteBuddy asks about
     * @throws RuntimeException when a method is matched by two declarations, or ByteBuddy cannot
     *     apply an advice to a method (the class is then to be left as it is)
     */
    Woven weave(String internalName, ClassLoader loader, byte[] classFile, List<Declaration> declared) {
        String name = internalName.replace('/', '.');
        TypePool pool = new TypePool.Default.WithLazyResolution(
                new TypePool.CacheProvider.Simple(),
                new ClassFileLocator.Compound(
                        ClassFileLocator.Simple.of(name, classFile), ClassFileLocator.ForClassLoader.of(loader)),
                TypePool.Default.ReaderMode.FAST,
                READER);
        TypeDescription type = pool.describe(name).resolve();
        ClassReader reader = OpenedClassReader.of(classFile, true);
        ClassWriter writer = new ClassWriter(reader, WRITER_FLAGS); // copies what it is not told to change
        ClassFileVersion version = ClassFileVersion.ofClassFile(classFile);
        Implementation.Context.ExtractableView context = Implementation.Context.Disabled.Factory.INSTANCE.make(
                type, NO_AUXILIARY_TYPES, TypeInitializer.None.INSTANCE, version, version);
        HookedMethods hooked = new HookedMethods(writer, type, declared, context, pool);
        reader.accept(hooked, READER_FLAGS);
        return hooked.woven == 0 ? null : new Woven(writer.toByteArray(), hooked.woven);
    }

    /** Sends each method a declaration matches through that declaration's advice. */
    private static final class HookedMethods extends ClassVisitor {
        private final TypeDescription type;
        private final List<Declaration> declared;
        private final Implementation.Context context;
        private final TypePool pool;
        private final Map<String, MethodDescription> byNameAndDescriptor = new HashMap<>();
        int woven;

        HookedMethods(
                ClassVisitor writer,
                TypeDescription type,
                List<Declaration> declared,
                Implementation.Context context,
                TypePool pool) {
            super(OpenedClassReader.ASM_API, writer);
            this.type = type;
            this.declared = declared;
            this.context = context;
            this.pool = pool;
            for (MethodDescription method : type.getDeclaredMethods()) {
                byNameAndDescriptor.put(method.getInternalName() + method.getDescriptor(), method);
            }
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor target = super.visitMethod(access, name, descriptor, signature, exceptions);
            if (target == null || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                return target;
            }
            MethodDescription method = byNameAndDescriptor.get(name + descriptor);
            if (method == null) {
                return target;
            }
            Declaration chosen = null;
            for (Declaration declaration : declared) {
                if (declaration.methods.matches(method)) {
                    if (chosen != null) {
                        throw new IllegalStateException(type.getName() + "." + name + descriptor
                                + " is matched by two advice classes, " + chosen.adviceClassName + " and "
                                + declaration.adviceClassName);
                    }
                    chosen = declaration;
                }
            }
            if (chosen == null) {
                return target;
            }
            woven++;
            return chosen.advice.wrap(type, method, target, context, pool, WRITER_FLAGS, READER_FLAGS);
        }
    }
}
