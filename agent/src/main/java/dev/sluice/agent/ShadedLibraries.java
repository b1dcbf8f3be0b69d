package dev.sluice.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The build step that rewrites the libraries shaded into the agent jar (see {@code agent/pom.xml}),
 * so that what they would cost the host as they load is paid once, at build time: their {@code
 * System.getLogger} calls sent to the agent's log ({@link LibraryLoggers}), and their {@code
 * invokedynamic} string concatenations written out ({@link InlinedConcat}).
 */
public final class ShadedLibraries {

    private ShadedLibraries() {}

    /**
     * {@code ShadedLibraries <jar> <directory>}: writes each class of the jar that a rewrite
     * changes under the directory at its path in the jar, and prints their names.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ShadedLibraries <jar> <output directory>");
        }
        List<String> rewritten = rewriteJar(Paths.get(args[0]), Paths.get(args[1]));
        System.out.println("[sluice build] shaded classes rewritten (loggers, string concatenations): " + rewritten);
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

    /** The class with every rewrite applied, or null when none changes it. */
    static byte[] rewrite(byte[] classFile) {
        byte[] loggers = LibraryLoggers.rewrite(classFile);
        byte[] current = loggers == null ? classFile : loggers;
        byte[] concat = InlinedConcat.rewrite(current);
        return concat != null ? concat : loggers;
    }

    /** Whether the class file holds these bytes (a name in its constant pool): spares parsing the classes that cannot match. */
    static boolean mentions(byte[] classFile, byte[] ascii) {
        outer:
        for (int i = 0; i <= classFile.length - ascii.length; i++) {
            for (int j = 0; j < ascii.length; j++) {
                if (classFile[i + j] != ascii[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
