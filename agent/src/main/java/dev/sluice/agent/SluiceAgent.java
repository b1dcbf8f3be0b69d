package dev.sluice.agent;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.jar.JarFile;

/**
 * {@code Premain-Class} and {@code Agent-Class} of the agent jar: a trampoline.
 *
 * <p>The bridge classes ({@code dev.sluice.bootstrap.*}) must be defined by the bootstrap loader,
 * and only there, so advice in every loader (even {@code java.net.http}) reaches one and the
 * same governor. They travel inside this jar as a nested jar, invisible to every class path. This
 * class appends that jar to the bootstrap search path before anything refers to a bridge type:
 * its own signatures and body use JDK types only, and {@link AgentStartup} (which does use the
 * bridge) is linked only when the call below first runs, after the append. A direct call, not
 * reflection: since JDK 18 the first reflective call spins method handles (~60 ms of start-up).
 * Whatever fails, it prints one line and returns: the JVM keeps running, ungoverned.
 */
public final class SluiceAgent {

    static final String BOOTSTRAP_JAR = "sluice/sluice-bootstrap.jar";
    private static final String BRIDGE = "dev.sluice.bootstrap.Bridge";

    private SluiceAgent() {}

    /** Start with the JVM: {@code -javaagent:sluice-agent.jar[=options]}. */
    public static void premain(String args, Instrumentation instrumentation) {
        start(args, instrumentation, false);
    }

    /** Late attach to a running JVM: classes already loaded are retransformed. */
    public static void agentmain(String args, Instrumentation instrumentation) {
        start(args, instrumentation, true);
    }

    private static void start(String args, Instrumentation instrumentation, boolean lateAttach) {
        long startedNanos = System.nanoTime();
        try {
            appendBootstrapJar(instrumentation);
            AgentStartup.start(args, instrumentation, lateAttach, startedNanos);
        } catch (Throwable failure) {
            System.err.println("[sluice] failed to start, the JVM runs ungoverned: " + failure);
            if (System.getProperty(AgentStartup.STATE_PROPERTY) == null) {
                System.setProperty(AgentStartup.STATE_PROPERTY, "ungoverned failed to start: " + failure);
            }
        }
    }

    private static void appendBootstrapJar(Instrumentation instrumentation) throws IOException {
        if (bridgeOnBootstrapPath()) {
            return; // attached twice, or started with -Xbootclasspath/a
        }
        Path jar = extractBootstrapJar();
        jar.toFile().deleteOnExit();
        instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
    }

    /**
     * Writes the nested bridge jar to a fresh file only this user can read. Not
     * {@code Files.createTempFile}: its SecureRandom initialises the security providers, which
     * costs a few hundred milliseconds of start-up. The name need not be secret: the file is
     * created exclusively (never follows or reuses an existing path) with owner-only permissions.
     */
    private static Path extractBootstrapJar() throws IOException {
        Path dir = Paths.get(System.getProperty("java.io.tmpdir"));
        for (int attempt = 0; ; attempt++) {
            Path jar = dir.resolve("sluice-bootstrap-" + Long.toHexString(System.nanoTime()) + ".jar");
            try (InputStream in = SluiceAgent.class.getClassLoader().getResourceAsStream(BOOTSTRAP_JAR)) {
                if (in == null) {
                    throw new IOException(BOOTSTRAP_JAR + " is missing from the agent jar");
                }
                try (OutputStream out = Files.newOutputStream(createOwnerOnly(jar), StandardOpenOption.WRITE)) {
                    in.transferTo(out);
                }
                return jar;
            } catch (FileAlreadyExistsException taken) {
                if (attempt > 10) {
                    throw taken;
                }
            }
        }
    }

    private static Path createOwnerOnly(Path jar) throws IOException {
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return Files.createFile(
                    jar, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        return Files.createFile(jar);
    }

    private static boolean bridgeOnBootstrapPath() {
        try {
            Class.forName(BRIDGE, false, null);
            return true;
        } catch (ClassNotFoundException absent) {
            return false;
        }
    }
}
