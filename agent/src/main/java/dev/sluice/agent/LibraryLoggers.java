package dev.sluice.agent;

import java.nio.charset.StandardCharsets;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/**
 * Keeps the libraries shaded into the agent off {@code java.util.logging}, which belongs to the
 * host. A build step (see {@link ShadedLibraries}), run on the shaded jar, not in the host.
 *
 * <p>Caffeine takes its loggers from {@link System#getLogger}, which, for a class outside the JDK,
 * initialises {@code java.util.logging.LogManager} there and then. The governor's first cache is
 * built on {@code sluice-start}, while the application's {@code main} runs: an application that
 * chooses its log manager in {@code main} (JBoss Modules sets {@code java.util.logging.manager}
 * there, and WildFly's logging then refuses to start; so does any app that installs a bridge that
 * way) would get the JDK's instead. This rewrites every {@code System.getLogger(String)} call of
 * the jar's classes into {@link AgentSystemLogger#named}, which logs through the agent's log.
 * Done at build time rather than as the classes load, it costs the host nothing: rewriting
 * Caffeine's classes as they loaded took 20 to 40 ms of {@code sluice-start} and made the JIT
 * compile the rewriter (docs/startup-figures.md).
 */
public final class LibraryLoggers {

    private static final String GET_LOGGER_DESCRIPTOR = "(Ljava/lang/String;)Ljava/lang/System$Logger;";
    private static final byte[] GET_LOGGER_NAME = "getLogger".getBytes(StandardCharsets.US_ASCII);
    private static final String SHIM = AgentSystemLogger.class.getName().replace('.', '/');

    private LibraryLoggers() {}

    /**
     * The class with every {@code System.getLogger(String)} call sent to {@link
     * AgentSystemLogger#named}, or null when it has none.
     */
    static byte[] rewrite(byte[] classFile) {
        if (!ShadedLibraries.mentions(classFile, GET_LOGGER_NAME)) {
            return null; // spares parsing the thousands of classes that cannot call it
        }
        // same operand stack before and after each rewritten call: the frames are copied as they are
        return ShadedLibraries.rewriteMethods(new ClassReader(classFile), 0, new ShadedLibraries.MethodRewrite() {
            @Override
            public MethodVisitor of(String name, String descriptor, MethodVisitor next, boolean[] changed) {
                return new GetLoggerCalls(next, changed);
            }
        });
    }

    /** Turns {@code System.getLogger(String)} into {@link AgentSystemLogger#named}. */
    private static final class GetLoggerCalls extends MethodVisitor {
        private final boolean[] found;

        GetLoggerCalls(MethodVisitor method, boolean[] found) {
            super(Opcodes.ASM9, method);
            this.found = found;
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String method, String desc, boolean isInterface) {
            if (opcode == Opcodes.INVOKESTATIC
                    && owner.equals("java/lang/System")
                    && method.equals("getLogger")
                    && desc.equals(GET_LOGGER_DESCRIPTOR)) {
                found[0] = true;
                super.visitMethodInsn(Opcodes.INVOKESTATIC, SHIM, "named", desc, false);
            } else {
                super.visitMethodInsn(opcode, owner, method, desc, isInterface);
            }
        }
    }
}
