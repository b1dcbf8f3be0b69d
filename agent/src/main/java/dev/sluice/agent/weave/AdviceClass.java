package dev.sluice.agent.weave;

import org.objectweb.asm.AnnotationVisitor;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * An advice class read from its class file (it is never loaded): its {@code @OnMethodEnter} and
 * {@code @OnMethodExit} methods, either of which may be absent.
 */
public final class AdviceClass {

    private static final String ADVICE = "Ldev/sluice/instrumentation/api/Advice$";

    final String name;
    AdviceMethod enter;
    AdviceMethod exit;

    private AdviceClass(String name) {
        this.name = name;
    }

    /** Reads the advice class {@code name} from its class file. */
    public static AdviceClass read(String name, byte[] classBytes) {
        AdviceClass advice = new AdviceClass(name);
        new ClassReader(classBytes)
                .accept(
                        new ClassVisitor(Opcodes.ASM9) {
                            @Override
                            public MethodVisitor visitMethod(
                                    int access,
                                    String method,
                                    String descriptor,
                                    String signature,
                                    String[] exceptions) {
                                if ((access & Opcodes.ACC_STATIC) == 0) {
                                    return null;
                                }
                                return new AnnotationReader(
                                        advice, new AdviceMethod(name, classBytes, method, descriptor));
                            }
                        },
                        ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES); // code read: invokedynamic is checked
        if (advice.enter == null && advice.exit == null) {
            throw new WeaveException(name + " has neither an @OnMethodEnter nor an @OnMethodExit method");
        }
        if (advice.enter != null) {
            advice.enter.validate(true);
        }
        if (advice.exit != null) {
            advice.exit.validate(false);
        }
        return advice;
    }

    @Override
    public String toString() {
        return name;
    }

    /** Reads the annotations of one static method of an advice class. */
    private static final class AnnotationReader extends MethodVisitor {
        private final AdviceClass advice;
        private final AdviceMethod method;

        AnnotationReader(AdviceClass advice, AdviceMethod method) {
            super(Opcodes.ASM9);
            this.advice = advice;
            this.method = method;
        }

        @Override
        public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
            if (descriptor.equals(ADVICE + "OnMethodEnter;")) {
                if (advice.enter != null) {
                    throw new WeaveException(advice + " has two @OnMethodEnter methods");
                }
                advice.enter = method;
                return new Values(null, method);
            }
            if (descriptor.equals(ADVICE + "OnMethodExit;")) {
                if (advice.exit != null) {
                    throw new WeaveException(advice + " has two @OnMethodExit methods");
                }
                advice.exit = method;
                return new Values(null, method);
            }
            return null;
        }

        @Override
        public AnnotationVisitor visitParameterAnnotation(int parameter, String descriptor, boolean visible) {
            if (!descriptor.startsWith(ADVICE)) {
                return null;
            }
            AdviceMethod.Parameter bound = method.parameters[parameter];
            if (bound.binding != null) {
                throw new WeaveException(method + ": parameter " + parameter + " has two advice annotations");
            }
            bound.binding = AdviceMethod.Binding.of(descriptor.substring(ADVICE.length(), descriptor.length() - 1));
            if (bound.binding == null) {
                throw new WeaveException(
                        method + ": parameter " + parameter + " has an unknown annotation " + descriptor);
            }
            return new Values(bound, method);
        }

        @Override
        public void visitInvokeDynamicInsn(
                String name, String descriptor, Handle bootstrap, Object... bootstrapArguments) {
            method.usesInvokeDynamic = true;
        }
    }

    /** The values of one annotation: of the method ({@code parameter == null}) or of a parameter. */
    private static final class Values extends AnnotationVisitor {
        private final AdviceMethod.Parameter parameter;
        private final AdviceMethod method;

        Values(AdviceMethod.Parameter parameter, AdviceMethod method) {
            super(Opcodes.ASM9);
            this.parameter = parameter;
            this.method = method;
        }

        @Override
        public void visit(String name, Object value) {
            if (parameter == null) {
                if (name.equals("skipOnNonNull")) {
                    method.skipOnNonNull = (Boolean) value;
                } else if (name.equals("onThrowable")) {
                    method.onThrowable = (Boolean) value;
                }
                return;
            }
            switch (name) {
                case "value":
                    if (value instanceof Integer) {
                        parameter.argumentIndex = (Integer) value;
                    } else {
                        parameter.fieldName = (String) value;
                    }
                    break;
                case "readOnly":
                    parameter.writable = !(Boolean) value;
                    break;
                default:
                    break;
            }
        }
    }
}
