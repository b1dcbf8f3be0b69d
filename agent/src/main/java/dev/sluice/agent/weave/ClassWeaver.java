package dev.sluice.agent.weave;

import dev.sluice.instrumentation.api.MethodSelector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Weaves advice into one class file with ASM alone: reads the class, copies each selected
 * method's advice into it ({@link AdvisedMethod}) and writes it back. No class is loaded or
 * resolved, and no member is added, so the result is fit for a retransformation too.
 */
public final class ClassWeaver {

    /** One advice and the methods it goes on. */
    public static final class Declaration {
        final MethodSelector methods;
        final AdviceClass advice;

        public Declaration(MethodSelector methods, AdviceClass advice) {
            this.methods = methods;
            this.advice = advice;
        }
    }

    private ClassWeaver() {}

    /**
     * The class with its advice woven in, or {@code null} when no method of it is selected.
     *
     * @throws WeaveException when the class or an advice has a shape the weaver cannot handle
     */
    public static byte[] weave(byte[] classFile, List<Declaration> declarations) {
        ClassReader reader = new ClassReader(classFile);
        // Maximum stack and locals are recomputed, which loads nothing; frames are written by the
        // weaver itself (COMPUTE_FRAMES would load classes to find common super types).
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        Selecting selecting = new Selecting(writer, declarations);
        reader.accept(selecting, ClassReader.EXPAND_FRAMES);
        return selecting.woven ? writer.toByteArray() : null;
    }

    /** Passes the class through, sending each selected method through an {@link AdvisedMethod}. */
    private static final class Selecting extends ClassVisitor {
        private final List<Declaration> declarations;
        private final Map<String, AdvisedMethod.FieldShape> fields = new HashMap<>();
        private String owner;
        private String binaryName;
        boolean woven;

        Selecting(ClassVisitor writer, List<Declaration> declarations) {
            super(Opcodes.ASM9, writer);
            this.declarations = declarations;
        }

        @Override
        public void visit(
                int version, int access, String name, String signature, String superName, String[] interfaces) {
            if ((version & 0xFFFF) < Opcodes.V1_6) {
                throw new WeaveException(name + " is a class file older than Java 6, without stack map frames");
            }
            owner = name;
            binaryName = name.replace('/', '.');
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            // the class file lists fields before methods, so an advice reading one finds it here
            fields.put(name, new AdvisedMethod.FieldShape(descriptor, (access & Opcodes.ACC_STATIC) != 0));
            return super.visitField(access, name, descriptor, signature, value);
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor target = super.visitMethod(access, name, descriptor, signature, exceptions);
            if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0 || name.charAt(0) == '<') {
                return target;
            }
            String returns = Type.getReturnType(descriptor).getDescriptor();
            List<String> arguments = new ArrayList<>();
            for (Type argument : Type.getArgumentTypes(descriptor)) {
                arguments.add(argument.getDescriptor());
            }
            AdviceClass selected = null;
            for (Declaration declaration : declarations) {
                if (declaration.methods.matches(binaryName, access, name, returns, arguments)) {
                    if (selected != null) {
                        throw new WeaveException(owner + "." + name + descriptor
                                + " is selected by two advice classes, " + selected + " and " + declaration.advice);
                    }
                    selected = declaration.advice;
                }
            }
            if (selected == null) {
                return target;
            }
            woven = true;
            return new AdvisedMethod(target, owner, access, name, descriptor, fields, selected);
        }
    }
}
