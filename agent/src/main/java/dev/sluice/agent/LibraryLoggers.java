package dev.sluice.agent;

import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Keeps the libraries shaded into the agent off {@code java.util.logging}, which belongs to the
 * host.
 *
 * <p>Caffeine takes its loggers from {@link System#getLogger}, which, for a class outside the JDK,
 * initialises {@code java.util.logging.LogManager} there and then. The governor's first cache is
 * built on {@code sluice-start}, while the application's {@code main} runs: an application that
 * chooses its log manager in {@code main} (JBoss Modules sets {@code java.util.logging.manager}
 * there, and WildFly's logging then refuses to start; so does any app that installs a bridge that
 * way) would get the JDK's instead. As the agent's own copy of Caffeine loads, this rewrites its
 * {@code System.getLogger(String)} calls into {@link AgentSystemLogger#named}, which logs through
 * the agent's log. Only classes under the shaded package are looked at, and only those whose
 * constant pool names {@code getLogger} are parsed.
 */
final class LibraryLoggers implements ClassFileTransformer {

    static final String SHADED_CAFFEINE = "dev/sluice/shaded/caffeine/";

    private static final String GET_LOGGER_DESCRIPTOR = "(Ljava/lang/String;)Ljava/lang/System$Logger;";
    private static final String SHIM = AgentSystemLogger.class.getName().replace('.', '/');
    private static final byte[] GET_LOGGER = "getLogger".getBytes(StandardCharsets.US_ASCII);

    @Override
    public byte[] transform(
            ClassLoader loader,
            String className,
            Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain,
            byte[] classfileBuffer) {
        if (className == null || !className.startsWith(SHADED_CAFFEINE) || !contains(classfileBuffer, GET_LOGGER)) {
            return null;
        }
        try {
            return rewrite(classfileBuffer);
        } catch (Throwable failure) {
            // left as it is: the library still works, it just logs through the JDK
            AgentLog.get().warn("could not keep {} off java.util.logging", className, failure);
            return null;
        }
    }

    /** The class with every {@code System.getLogger(String)} call sent to {@link AgentSystemLogger#named}. */
    static byte[] rewrite(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        // same operand stack before and after each rewritten call: the frames are copied as they are
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] exceptions) {
                        return new MethodVisitor(
                                Opcodes.ASM9, super.visitMethod(access, name, descriptor, signature, exceptions)) {
                            @Override
                            public void visitMethodInsn(
                                    int opcode, String owner, String method, String desc, boolean isInterface) {
                                if (opcode == Opcodes.INVOKESTATIC
                                        && owner.equals("java/lang/System")
                                        && method.equals("getLogger")
                                        && desc.equals(GET_LOGGER_DESCRIPTOR)) {
                                    super.visitMethodInsn(Opcodes.INVOKESTATIC, SHIM, "named", desc, false);
                                } else {
                                    super.visitMethodInsn(opcode, owner, method, desc, isInterface);
                                }
                            }
                        };
                    }
                },
                0);
        return writer.toByteArray();
    }

    private static boolean contains(byte[] bytes, byte[] word) {
        outer:
        for (int i = 0, last = bytes.length - word.length; i <= last; i++) {
            for (int j = 0; j < word.length; j++) {
                if (bytes[i + j] != word[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
