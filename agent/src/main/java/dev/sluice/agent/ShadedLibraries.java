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
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

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

    /** One rewrite's visitor of a method, in front of the writer's ({@code next}). */
    interface MethodRewrite {
        /** Sets {@code changed[0]} when it changes an instruction; returns {@code next} to leave the method alone. */
        MethodVisitor of(String name, String descriptor, MethodVisitor next, boolean[] changed);
    }

    /**
     * The class read by {@code reader}, every method passed through {@code rewrite}, written with
     * {@code writerFlags} (the constant pool kept: unchanged methods are copied); null when the
     * rewrite changed nothing.
     */
    static byte[] rewriteMethods(ClassReader reader, int writerFlags, MethodRewrite rewrite) {
        ClassWriter writer = new ClassWriter(reader, writerFlags);
        boolean[] changed = {false};
        reader.accept(
                new ClassVisitor(Opcodes.ASM9, writer) {
                    @Override
                    public MethodVisitor visitMethod(
                            int access, String name, String descriptor, String signature, String[] exceptions) {
                        return rewrite.of(
                                name,
                                descriptor,
                                super.visitMethod(access, name, descriptor, signature, exceptions),
                                changed);
                    }
                },
                0);
        return changed[0] ? writer.toByteArray() : null;
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
