package dev.sluice.agent.it;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

/** What the tests read in class files: the built agent jar's classes, and their methods' instructions. */
public final class ClassFiles {

    private ClassFiles() {}

    /** Receives one class file of the agent jar. */
    public interface EachClass {
        void accept(String internalName, String entryName, byte[] classFile);
    }

    /** Every class file of the built agent jar ({@code META-INF/versions/} ones included), in the jar's order. */
    public static void eachOfTheAgentJar(EachClass each) throws IOException {
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            for (JarEntry entry : Collections.list(jar.entries())) {
                if (!entry.getName().endsWith(".class")) {
                    continue;
                }
                try (InputStream in = jar.getInputStream(entry)) {
                    byte[] classFile = in.readAllBytes();
                    each.accept(new ClassReader(classFile).getClassName(), entry.getName(), classFile);
                }
            }
        }
    }

    /** Replays the instructions of every method of the class into {@code instructions}, debug information left out. */
    public static void eachInstruction(byte[] classFile, MethodVisitor instructions) {
        new ClassReader(classFile)
                .accept(
                        new ClassVisitor(Opcodes.ASM9) {
                            @Override
                            public MethodVisitor visitMethod(
                                    int access, String name, String descriptor, String signature, String[] ex) {
                                return instructions;
                            }
                        },
                        ClassReader.SKIP_DEBUG);
    }

    /** How many {@code invokedynamic} instructions of the class {@code bootstrapOwner} bootstraps. */
    public static int invokedynamicSites(byte[] classFile, String bootstrapOwner) {
        int[] sites = {0};
        eachInstruction(classFile, new MethodVisitor(Opcodes.ASM9) {
            @Override
            public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap, Object... args) {
                if (bootstrap.getOwner().equals(bootstrapOwner)) {
                    sites[0]++;
                }
            }
        });
        return sites[0];
    }
}
