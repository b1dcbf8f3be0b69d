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
        THIS("This", false, false),
        ARGUMENT("Argument", true, false),
        ALL_ARGUMENTS("AllArguments", false, false),
        FIELD("FieldValue", false, false),
        ORIGIN("Origin", false, false),
        METHOD_NAME("MethodName", false, false),
        ENTER("Enter", false, true),
        RETURN("Return", true, true),
        THROWN("Thrown", true, true);

        /** The simple name of its annotation in {@code Advice}. */
        final String annotation;
        /** Whether an advice may assign to it ({@code readOnly = false}). */
        final boolean writable;
        /** Whether it exists only once the body ran: exit advice only. */
        final boolean afterBody;

        Binding(String annotation, boolean writable, boolean afterBody) {
            this.annotation = annotation;
            this.writable = writable;
            this.afterBody = afterBody;
        }

        /** The binding of an annotation's simple name, or null. */
        static Binding of(String annotation) {
            for (Binding binding : values()) {
                if (binding.annotation.equals(annotation)) {
                    return binding;
                }
            }
            return null;
        }
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
    /** Whether its code has an {@code invokedynamic} (seen when the class is read). */
    boolean usesInvokeDynamic;

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

    /**
     * Checks what can be checked of the advice alone, once, when its class is read: every
     * parameter bound, and bound to what this side of the body has and may change; a return type
     * the weaver keeps; no {@code invokedynamic}, whose bootstrap the hooked class would lack.
     */
    void validate(boolean isEnter) {
        for (int i = 0; i < parameters.length; i++) {
            Parameter parameter = parameters[i];
            if (parameter.binding == null) {
                throw new WeaveException(this + ": parameter " + i + " has no advice annotation");
            }
            if (isEnter && parameter.binding.afterBody) {
                throw new WeaveException(this + ": enter advice cannot read " + parameter.binding);
            }
            if (parameter.writable && !parameter.binding.writable) {
                throw new WeaveException(this + ": " + parameter.binding + " cannot be written");
            }
        }
        int sort = returnType().getSort();
        if (!isEnter && sort != Type.VOID) {
            throw new WeaveException(this + ": exit advice must return void");
        }
        if (sort == Type.LONG || sort == Type.DOUBLE) {
            throw new WeaveException(this + ": enter advice may not return long or double");
        }
        if (usesInvokeDynamic) {
            throw new WeaveException(this + " uses invokedynamic (a lambda or string concatenation)");
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
