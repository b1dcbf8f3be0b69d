package dev.sluice.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LibraryLoggersTest {

    /** Stands for a Caffeine class: takes its logger from the JDK as it initialises. */
    public static final class TakesASystemLogger {
        static final System.Logger LOGGER = System.getLogger("com.example.Cache");

        public static System.Logger logger() {
            return LOGGER;
        }
    }

    @Test
    void aRewrittenClassGetsTheAgentsLoggerUnderTheSameName() throws Exception {
        byte[] rewritten = LibraryLoggers.rewrite(classFile(TakesASystemLogger.class));
        Class<?> loaded = new OneClassLoader(TakesASystemLogger.class.getName(), rewritten)
                .loadClass(TakesASystemLogger.class.getName());
        Method logger = loaded.getMethod("logger");

        System.Logger got = (System.Logger) logger.invoke(null);

        assertThat(got).isInstanceOf(AgentSystemLogger.class);
        assertThat(got.getName()).isEqualTo("com.example.Cache");
        assertThat(got.isLoggable(System.Logger.Level.OFF)).isFalse();
        got.log(System.Logger.Level.DEBUG, "not shown at the default level {0}", 1); // must not throw
        assertThat(got.isLoggable(System.Logger.Level.WARNING))
                .as("the agent's default level")
                .isTrue();
        got.log(System.Logger.Level.WARNING, "a pattern MessageFormat cannot read {", 1); // logged as it is
    }

    /** Stands for every other library class: no logger of the JDK's. */
    public static final class TakesNoLogger {
        public static String name() {
            return "getLogger"; // the name alone, in its constant pool, is not a call
        }
    }

    @Test
    void aClassWithoutTheCallIsLeftAsItIs() throws Exception {
        assertThat(LibraryLoggers.rewrite(classFile(TakesNoLogger.class))).isNull();
    }

    @Test
    void fromAJarOnlyTheCallersAreWrittenAtTheirPaths(@TempDir Path dir) throws Exception {
        Path jar = dir.resolve("library.jar");
        String caller = TakesASystemLogger.class.getName().replace('.', '/') + ".class";
        String other = TakesNoLogger.class.getName().replace('.', '/') + ".class";
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Class<?> type : List.of(TakesASystemLogger.class, TakesNoLogger.class)) {
                out.putNextEntry(new JarEntry(type.getName().replace('.', '/') + ".class"));
                out.write(classFile(type));
            }
            out.putNextEntry(new JarEntry("META-INF/notes.txt"));
            out.write("System.getLogger".getBytes(StandardCharsets.US_ASCII));
        }
        Path rewritten = dir.resolve("rewritten");

        List<String> names = ShadedLibraries.rewriteJar(jar, rewritten);

        assertThat(names).containsExactly(caller);
        assertThat(rewritten.resolve(caller)).exists();
        assertThat(rewritten.resolve(other)).doesNotExist();
        assertThat(Files.readAllBytes(rewritten.resolve(caller)))
                .isEqualTo(LibraryLoggers.rewrite(classFile(TakesASystemLogger.class)));
    }

    private static byte[] classFile(Class<?> type) throws Exception {
        String resource = "/" + type.getName().replace('.', '/') + ".class";
        try (InputStream in = type.getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }
}
