package dev.sluice.agent.weave;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/** The enter or exit method of an advice class: what each parameter binds to, and its code to copy. */
final class AdviceMethod {

    /** What an advice parameter reads (see {@code dev.sluice.instrumentation.api.Advice}). */
    enum Binding {
        THIS,
        ARGUMENT,
        ALL_ARGUMENTS,
        FIELD,
        ORIGIN,
        METHOD_NAME,
        ENTER,
        RETURN,
        THROWN
    }

    /** One parameter of the advice method. */
    static final class Parameter {
        Binding binding;
        int argumentIndex;
        String fieldName;
        boolean writable;
        final Type type;

        Parameter(Type type) {
            this.type = type;
        }
    }

    final String adviceClass;
    final String name;
    final String descriptor;
    final Parameter[] parameters;
    /** Enter advice: a non-null return value skips the method's body. */
    boolean skipOnNonNull;
    /** Exit advice: also runs when the method throws. */
    boolean onThrowable;

    private final byte[] classBytes;

    AdviceMethod(String adviceClass, byte[] classBytes, String name, String descriptor) {
        this.adviceClass = adviceClass;
        this.classBytes = classBytes;
        this.name = name;
        this.descriptor = descriptor;
        Type[] types = Type.getArgumentTypes(descriptor);
        this.parameters = new Parameter[types.length];
        for (int i = 0; i < types.length; i++) {
            parameters[i] = new Parameter(types[i]);
        }
    }

    Type returnType() {
        return Type.getReturnType(descriptor);
    }

    /** Slots the parameters take, in the advice's own numbering (a static method: they start at 0). */
    int parameterSlots() {
        int slots = 0;
        for (Parameter parameter : parameters) {
            slots += parameter.type.getSize();
        }
        return slots;
    }

    /** Checks every parameter is bound; the advice class's name and the method in the message. */
    void validate() {
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].binding == null) {
                throw new WeaveException(this + ": parameter " + i + " has no advice annotation");
            }
        }
        int sort = returnType().getSort();
        if (sort == Type.LONG || sort == Type.DOUBLE) {
            throw new WeaveException(this + ": enter advice may not return long or double");
        }
    }

    /** Sends this method's code, with expanded frames, to {@code into}. */
    void replay(MethodVisitor into) {
        new ClassReader(classBytes)
                .accept(
                        new ClassVisitor(Opcodes.ASM9) {
                            @Override
                            public MethodVisitor visitMethod(
                                    int access, String method, String desc, String signature, String[] exceptions) {
                                return method.equals(name) && desc.equals(descriptor) ? into : null;
                            }
                        },
                        ClassReader.EXPAND_FRAMES);
    }

    @Override
    public String toString() {
        return adviceClass + "." + name;
    }
}
