package dev.sluice.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Keeps the libraries shaded into the agent off {@code java.util.logging}, which belongs to the
 * host. A build step, run on the shaded jar (see {@code agent/pom.xml}), not in the host.
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
     * {@code LibraryLoggers <jar> <directory>}: writes each class of the jar that calls {@code
     * System.getLogger}, rewritten, under the directory at its path in the jar, and prints their
     * names.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: LibraryLoggers <jar> <output directory>");
        }
        List<String> rewritten = rewriteJar(Paths.get(args[0]), Paths.get(args[1]));
        System.out.println("[sluice build] System.getLogger calls sent to the agent's log in " + rewritten);
    }

    /** The entries of {@code jar} rewritten into {@code directory}, by name. */
    static List<String> rewriteJar(Path jar, Path directory) throws IOException {
        List<String> rewritten = new ArrayList<>();
        try (JarFile in = new JarFile(jar.toFile())) {
            for (JarEntry entry : Collections.list(in.entries())) {
                if (!entry.getName().endsWith(".class")) {
                    continue;
                }
                byte[] classFile;
                try (InputStream bytes = in.getInputStream(entry)) {
                    classFile = bytes.readAllBytes();
                }
                if (!mayCallGetLogger(classFile)) {
                    continue;
                }
                byte[] changed = rewrite(classFile);
                if (changed != null) {
                    Path out = directory.resolve(entry.getName());
                    Files.createDirectories(out.getParent());
                    Files.write(out, changed);
                    rewritten.add(entry.getName());
                }
            }
        }
        return rewritten;
    }

    /**
     * The class with every {@code System.getLogger(String)} call sent to {@link
     * AgentSystemLogger#named}, or null when it has none.
     */
    static byte[] rewrite(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        // same operand stack before and after each rewritten call: the frames are copied as they are
        ClassWriter writer = new ClassWriter(reader, 0);
        boolean[] found = {false};
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] exceptions) {
                        return new GetLoggerCalls(
                                super.visitMethod(access, name, descriptor, signature, exceptions), found);
                    }
                },
                0);
        return found[0] ? writer.toByteArray() : null;
    }

    /** Whether the constant pool could name {@code getLogger}: spares parsing the thousands of classes that cannot. */
    private static boolean mayCallGetLogger(byte[] classFile) {
        outer:
        for (int i = 0; i <= classFile.length - GET_LOGGER_NAME.length; i++) {
            for (int j = 0; j < GET_LOGGER_NAME.length; j++) {
                if (classFile[i + j] != GET_LOGGER_NAME[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
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
