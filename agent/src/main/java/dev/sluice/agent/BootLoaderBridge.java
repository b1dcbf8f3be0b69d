package dev.sluice.agent;

import java.io.ByteArrayInputStream;
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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import net.bytebuddy.jar.asm.ClassReader;

/**
 * Puts the bridge classes ({@code dev.sluice.bootstrap.*}, the nested jar
 * {@value #BOOTSTRAP_JAR}) into the bootstrap loader, before anything refers to them.
 *
 * <p>It defines them there directly from the nested jar's bytes. Appending the jar to the
 * bootstrap search path would do too, but it needs the jar written to a file first (a service
 * without a writable {@code java.io.tmpdir} then ran ungoverned), and HotSpot then prints
 * {@code Sharing is only supported for boot loader classes because bootstrap classpath has been
 * appended} on the host's stderr, a warning operators ask about. That append stays as the
 * fallback, for a JVM that refuses the direct definition.
 */
final class BootLoaderBridge {

    private static final String BOOTSTRAP_JAR = "sluice/sluice-bootstrap.jar";
    private static final String BRIDGE = "dev.sluice.bootstrap.Bridge";

    private BootLoaderBridge() {}

    /** Defines the bridge in the bootstrap loader, if not there yet; throws only if neither way worked. */
    static void install(Instrumentation instrumentation) throws IOException {
        if (bridgeLoaded()) {
            return; // attached twice, or started with -Xbootclasspath/a
        }
        byte[] jar = nestedJar();
        try {
            defineEach(instrumentation, classesOf(jar));
        } catch (Throwable refused) {
            // what got defined stays; the rest loads from the same bytes on the appended path
            appendToBootstrapPath(instrumentation, jar);
        }
    }

    private static boolean bridgeLoaded() {
        try {
            Class.forName(BRIDGE, false, null);
            return true;
        } catch (ClassNotFoundException absent) {
            return false;
        }
    }

    private static byte[] nestedJar() throws IOException {
        try (InputStream in = BootLoaderBridge.class.getClassLoader().getResourceAsStream(BOOTSTRAP_JAR)) {
            if (in == null) {
                throw new IOException(BOOTSTRAP_JAR + " is missing from the agent jar");
            }
            return in.readAllBytes();
        }
    }

    /** The jar's class files by binary name, in the jar's order. */
    private static Map<String, byte[]> classesOf(byte[] jar) throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(jar))) {
            for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
                String path = e.getName();
                if (path.endsWith(".class") && !path.endsWith("module-info.class")) {
                    classes.put(
                            path.substring(0, path.length() - ".class".length()).replace('/', '.'), in.readAllBytes());
                }
            }
        }
        return classes;
    }

    /**
     * Defines every class, each after the supertypes it has in the jar (the loader cannot look a
     * missing one up: nothing is on its path). Exports {@code jdk.internal.misc} to the agent first,
     * for {@link BootDefiner}.
     */
    private static void defineEach(Instrumentation instrumentation, Map<String, byte[]> classes) {
        new AgentModuleExports(instrumentation)
                .export(Object.class.getModule(), "jdk.internal.misc", BootLoaderBridge.class.getModule());
        Map<String, byte[]> left = new LinkedHashMap<>(classes);
        while (!left.isEmpty()) {
            define(left.keySet().iterator().next(), left);
        }
    }

    private static void define(String name, Map<String, byte[]> left) {
        byte[] classFile = left.remove(name);
        ClassReader reader = new ClassReader(classFile);
        defineIfLeft(reader.getSuperName(), left);
        for (String type : reader.getInterfaces()) {
            defineIfLeft(type, left);
        }
        BootDefiner.define(name, classFile);
    }

    /** Defines a supertype first when it is one of the jar's classes not defined yet. */
    private static void defineIfLeft(String internalName, Map<String, byte[]> left) {
        if (internalName != null) {
            String name = internalName.replace('/', '.');
            if (left.containsKey(name)) {
                define(name, left);
            }
        }
    }

    /**
     * Writes the nested jar to a fresh file only this user can read and appends it to the
     * bootstrap search path. Not {@code Files.createTempFile}: its SecureRandom initialises the
     * security providers, which costs a few hundred milliseconds of start-up. The name need not be
     * secret: the file is created exclusively (never follows or reuses an existing path) with
     * owner-only permissions.
     */
    private static void appendToBootstrapPath(Instrumentation instrumentation, byte[] jar) throws IOException {
        Path dir = Paths.get(System.getProperty("java.io.tmpdir"));
        for (int attempt = 0; ; attempt++) {
            Path file = dir.resolve("sluice-bootstrap-" + Long.toHexString(System.nanoTime()) + ".jar");
            try (OutputStream out = Files.newOutputStream(createOwnerOnly(file), StandardOpenOption.WRITE)) {
                out.write(jar);
            } catch (FileAlreadyExistsException taken) {
                if (attempt > 10) {
                    throw taken;
                }
                continue;
            }
            file.toFile().deleteOnExit();
            instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(file.toFile()));
            return;
        }
    }

    private static Path createOwnerOnly(Path file) throws IOException {
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            return Files.createFile(
                    file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        return Files.createFile(file);
    }
}
