package dev.sluice.agent;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

/**
 * Turns the shaded libraries' {@code invokedynamic} string concatenations (javac's default since
 * Java 9) into the {@code StringBuilder} calls javac writes with {@code -XDstringConcat=inline},
 * as the agent's own modules are compiled. A build step (see {@link ShadedLibraries}), not in the
 * host.
 *
 * <p>The first such concatenation a JVM runs bootstraps {@code StringConcatFactory}: 10 to 20 ms
 * of CPU, cold. Caffeine names the class of each cache it builds that way, so the governor's first
 * cache paid it on {@code sluice-start} while the application started, in JVMs whose own code
 * never concatenates through {@code invokedynamic} (an openai-java process does not: Kotlin and
 * Jackson there target Java 8). The rewritten code builds the same string: both append each value
 * as {@link String#valueOf} would.
 */
final class InlinedConcat {

    private static final String FACTORY = "java/lang/invoke/StringConcatFactory";
    private static final byte[] FACTORY_NAME = FACTORY.getBytes(StandardCharsets.US_ASCII);
    private static final char ARGUMENT = '\u0001';
    private static final char CONSTANT = '\u0002';
    private static final String BUILDER = "java/lang/StringBuilder";

    private InlinedConcat() {}

    /** The class with every string concatenation through {@code invokedynamic} inlined, or null when it has none. */
    static byte[] rewrite(byte[] classFile) {
        if (!ShadedLibraries.mentions(classFile, FACTORY_NAME)) {
            return null;
        }
        ClassReader reader = new ClassReader(classFile);
        Map<String, Integer> maxLocals = maxLocals(reader);
        // COMPUTE_MAXS: the builder and the values kept in new locals need more of both; no
        // branch is added, so the frames stay as they are (the new locals are dead at each one)
        return ShadedLibraries.rewriteMethods(reader, ClassWriter.COMPUTE_MAXS, new ShadedLibraries.MethodRewrite() {
            @Override
            public MethodVisitor of(String name, String descriptor, MethodVisitor next, boolean[] changed) {
                Integer firstFree = maxLocals.get(name + descriptor);
                return firstFree == null ? next : new Concatenations(next, firstFree, changed);
            }
        });
    }

    /** Each method's locals as compiled, by name and descriptor: the first slot a rewrite may use. */
    private static Map<String, Integer> maxLocals(ClassReader reader) {
        Map<String, Integer> locals = new HashMap<>();
        reader.accept(
                new ClassVisitor(Opcodes.ASM9) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] exceptions) {
                        return new MethodVisitor(Opcodes.ASM9) {
                            @Override
                            public void visitMaxs(int maxStack, int maxLocalCount) {
                                locals.put(name + descriptor, maxLocalCount);
                            }
                        };
                    }
                },
                ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return locals;
    }

    /** Replaces {@code makeConcat} and {@code makeConcatWithConstants} call sites in one method. */
    private static final class Concatenations extends MethodVisitor {
        private final int firstFree;
        private final boolean[] found;

        Concatenations(MethodVisitor method, int firstFree, boolean[] found) {
            super(Opcodes.ASM9, method);
            this.firstFree = firstFree;
            this.found = found;
        }

        @Override
        public void visitInvokeDynamicInsn(
                String name, String descriptor, Handle bootstrap, Object... bootstrapArguments) {
            String recipe = recipe(bootstrap, descriptor, bootstrapArguments);
            if (recipe == null) {
                super.visitInvokeDynamicInsn(name, descriptor, bootstrap, bootstrapArguments);
                return;
            }
            found[0] = true;
            Type[] values = Type.getArgumentTypes(descriptor);
            int[] slots = new int[values.length];
            int next = firstFree;
            for (int i = 0; i < values.length; i++) {
                slots[i] = next;
                next += values[i].getSize();
            }
            for (int i = values.length - 1; i >= 0; i--) { // the last value is on top of the stack
                super.visitVarInsn(values[i].getOpcode(Opcodes.ISTORE), slots[i]);
            }
            super.visitTypeInsn(Opcodes.NEW, BUILDER);
            super.visitInsn(Opcodes.DUP);
            super.visitMethodInsn(Opcodes.INVOKESPECIAL, BUILDER, "<init>", "()V", false);
            StringBuilder literal = new StringBuilder();
            int value = 0;
            int constant = 1;
            for (int i = 0; i < recipe.length(); i++) {
                char c = recipe.charAt(i);
                if (c == ARGUMENT || c == CONSTANT) {
                    appendLiteral(literal);
                    if (c == ARGUMENT) {
                        super.visitVarInsn(values[value].getOpcode(Opcodes.ILOAD), slots[value]);
                        append(values[value++]);
                    } else {
                        literal.append((String) bootstrapArguments[constant++]);
                    }
                } else {
                    literal.append(c);
                }
            }
            appendLiteral(literal);
            super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, BUILDER, "toString", "()Ljava/lang/String;", false);
        }

        private void appendLiteral(StringBuilder literal) {
            if (literal.length() > 0) {
                super.visitLdcInsn(literal.toString());
                append(Type.getType(String.class));
                literal.setLength(0);
            }
        }

        /** {@code StringBuilder.append} of the overload {@code String.valueOf} of this type would take. */
        private void append(Type type) {
            String parameter;
            switch (type.getSort()) {
                case Type.BOOLEAN:
                    parameter = "Z";
                    break;
                case Type.CHAR:
                    parameter = "C";
                    break;
                case Type.BYTE:
                case Type.SHORT:
                case Type.INT:
                    parameter = "I";
                    break;
                case Type.LONG:
                    parameter = "J";
                    break;
                case Type.FLOAT:
                    parameter = "F";
                    break;
                case Type.DOUBLE:
                    parameter = "D";
                    break;
                default:
                    parameter = type.getDescriptor().equals("Ljava/lang/String;")
                            ? "Ljava/lang/String;"
                            : "Ljava/lang/Object;";
            }
            super.visitMethodInsn(
                    Opcodes.INVOKEVIRTUAL, BUILDER, "append", "(" + parameter + ")L" + BUILDER + ";", false);
        }
    }

    /**
     * The call site's recipe ({@code \1} for each value in turn, {@code \2} for each constant),
     * or null when it is not a string concatenation this can write out: another bootstrap, or a
     * constant that is not a string (javac writes only strings there).
     */
    private static String recipe(Handle bootstrap, String descriptor, Object[] arguments) {
        if (!bootstrap.getOwner().equals(FACTORY)
                || !Type.getReturnType(descriptor).getDescriptor().equals("Ljava/lang/String;")) {
            return null;
        }
        if (bootstrap.getName().equals("makeConcat")) {
            return String.valueOf(ARGUMENT).repeat(Type.getArgumentTypes(descriptor).length);
        }
        if (!bootstrap.getName().equals("makeConcatWithConstants")
                || arguments.length == 0
                || !(arguments[0] instanceof String)) {
            return null;
        }
        String recipe = (String) arguments[0];
        int constants = 0;
        int values = 0;
        for (int i = 0; i < recipe.length(); i++) {
            if (recipe.charAt(i) == CONSTANT) {
                constants++;
                if (constants >= arguments.length || !(arguments[constants] instanceof String)) {
                    return null;
                }
            } else if (recipe.charAt(i) == ARGUMENT) {
                values++;
            }
        }
        return values == Type.getArgumentTypes(descriptor).length ? recipe : null;
    }
}
