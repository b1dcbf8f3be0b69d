package dev.sluice.agent;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.Set;
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
 * the agent's log. Only the classes of {@link #CALLERS} are parsed; every other class costs a
 * set look-up.
 */
public final class LibraryLoggers implements ClassFileTransformer {

    static final String SHADED_CAFFEINE = "dev/sluice/shaded/caffeine/";

    /**
     * The shaded Caffeine classes that call {@code System.getLogger}: {@code HostGlobalsIT}
     * checks this is exactly the jar's list, so a Caffeine upgrade that adds one fails the build.
     */
    public static final Set<String> CALLERS = Set.of(
            SHADED_CAFFEINE + "cache/Async",
            SHADED_CAFFEINE + "cache/BoundedLocalCache",
            SHADED_CAFFEINE + "cache/Caffeine",
            SHADED_CAFFEINE + "cache/ExecutorServiceScheduler",
            SHADED_CAFFEINE + "cache/GuardedScheduler",
            SHADED_CAFFEINE + "cache/LocalAsyncCache",
            SHADED_CAFFEINE + "cache/LocalAsyncLoadingCache",
            SHADED_CAFFEINE + "cache/LocalLoadingCache",
            SHADED_CAFFEINE + "cache/UnboundedLocalCache",
            SHADED_CAFFEINE + "cache/stats/GuardedStatsCounter");

    private static final String GET_LOGGER_DESCRIPTOR = "(Ljava/lang/String;)Ljava/lang/System$Logger;";
    private static final String SHIM = AgentSystemLogger.class.getName().replace('.', '/');

    @Override
    public byte[] transform(
            ClassLoader loader,
            String className,
            Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain,
            byte[] classfileBuffer) {
        if (className == null || !CALLERS.contains(className)) {
            return null;
        }
        try {
            long started = System.nanoTime();
            byte[] rewritten = rewrite(classfileBuffer);
            if (AgentLog.isDebug()) {
                AgentLog.get()
                        .debug(
                                "kept {} off java.util.logging in {} us",
                                className,
                                (System.nanoTime() - started) / 1000);
            }
            return rewritten;
        } catch (Throwable failure) {
            // left as it is: the library still works, it just logs through the JDK
            AgentLog.get().warn("could not keep {} off java.util.logging", className, failure);
            return null;
        }
    }

    /**
     * The class with every {@code System.getLogger(String)} call of its static initialiser (where
     * Caffeine takes its loggers; {@code HostGlobalsIT} checks there are no others) sent to
     * {@link AgentSystemLogger#named}.
     */
    static byte[] rewrite(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        // same operand stack before and after each rewritten call: the frames are copied as they are
        ClassWriter writer = new ClassWriter(reader, 0);
        reader.accept(new StaticInitialiser(writer), 0);
        return writer.toByteArray();
    }

    /** Sends {@code <clinit>} through {@link GetLoggerCalls}; every other method is copied as it is, unparsed. */
    private static final class StaticInitialiser extends ClassVisitor {
        StaticInitialiser(ClassVisitor writer) {
            super(Opcodes.ASM9, writer);
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor method = super.visitMethod(access, name, descriptor, signature, exceptions);
            return name.equals("<clinit>") ? new GetLoggerCalls(method) : method;
        }
    }

    /** Turns {@code System.getLogger(String)} into {@link AgentSystemLogger#named}. */
    private static final class GetLoggerCalls extends MethodVisitor {
        GetLoggerCalls(MethodVisitor method) {
            super(Opcodes.ASM9, method);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean isInterface) {
            if (opcode == Opcodes.INVOKESTATIC
                    && owner.equals("java/lang/System")
                    && method.equals("getLogger")
                    && desc.equals(GET_LOGGER_DESCRIPTOR)) {
                super.visitMethodInsn(Opcodes.INVOKESTATIC, SHIM, "named", desc, false);
            } else {
                super.visitMethodInsn(opcode, owner, method, desc, isInterface);
            }
        }
    }
}
